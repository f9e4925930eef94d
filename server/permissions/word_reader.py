"""Reading the words of a command line: where each word ends in the source, past
its quotes, escapes and expansions, with the command lines of its substitutions
parsed too (by the parser, `grammar.py`, which builds on this); blanks and comments.

A word's *meaning* is words.py's business: this keeps each word's source text.
"""

from __future__ import annotations

from agentls.permissions.bash_tokens import BLANKS, PLAIN, QUOTED_RUN
from agentls.permissions.script import Script, SourceWord, Unsupported


class WordReader:
    """A cursor over a command line (``s`` from ``i``) that reads words and blanks."""

    def __init__(self, source: str, fast: bool = True) -> None:
        self.s = source
        self.fast = fast
        self.i = 0

    def inner(self, closer: str) -> Script:
        """The command line inside $(…) or <(…), up to ``closer`` (the parser's)."""
        raise NotImplementedError

    def backquoted(self) -> Script:
        """The command line inside `…` (the parser's)."""
        raise NotImplementedError

    def comment(self) -> None:
        end = self.s.find("\n", self.i)
        self.i = len(self.s) if end < 0 else end

    def blanks(self) -> None:
        if self.i < len(self.s) and self.s[self.i] in " \t\\":
            match = BLANKS.match(self.s, self.i)
            if match is not None:
                self.i = match.end()

    def word(self) -> SourceWord:
        start = self.i
        scripts: list[Script] = []
        s = self.s
        while self.i < len(s):
            match = PLAIN.match(s, self.i)
            if match is not None:
                self.i = match.end()
                continue
            c = s[self.i]
            if c in " \t\n;&|)":
                break
            if c in "<>":
                if s.startswith("(", self.i + 1):
                    self.i += 2
                    scripts.append(self.inner(")"))
                    continue
                break
            if c == "(":
                raise Unsupported("'(' inside a word")
            self.quoting(c, scripts)
        if self.i == start:
            raise Unsupported(f"unexpected {s[self.i : self.i + 10]!r}")
        return SourceWord(s[start : self.i], scripts)

    def double_quoted(self, scripts: list[Script]) -> None:
        s = self.s
        self.i += 1
        while self.i < len(s):
            run = QUOTED_RUN.match(s, self.i)
            if run is not None:
                self.i = run.end()
                continue
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            self.quoting(c, scripts)  # \, $ or ` (the run took everything else)
        raise Unsupported("an unterminated quote")

    def dollar(self, scripts: list[Script]) -> None:
        s = self.s
        if s.startswith("$((", self.i):
            self.i += 3
            self.balanced("(", ")", depth=2)
        elif s.startswith("$(", self.i):
            self.i += 2
            scripts.append(self.inner(")"))
        elif s.startswith("${", self.i):
            self.i += 2
            self.braced(scripts)
        elif s.startswith("$[", self.i):
            self.i += 2
            self.balanced("[", "]", depth=1)
        elif s.startswith("$'", self.i):
            self.i += 2
            while self.i < len(s) and s[self.i] != "'":
                self.i += 2 if s[self.i] == "\\" else 1
            if self.i >= len(s):
                raise Unsupported("an unterminated quote")
            self.i += 1
        else:
            self.i += 1

    def braced(self, scripts: list[Script]) -> None:
        """${…}: to the matching brace; substitutions inside are parsed too."""
        s = self.s
        depth = 1
        while self.i < len(s):
            c = s[self.i]
            if c == "}":
                depth -= 1
                self.i += 1
                if depth == 0:
                    return
            elif c == "{":
                depth += 1
                self.i += 1
            else:
                self.quoting(c, scripts)
        raise Unsupported("an unterminated ${")

    def quoting(self, c: str, scripts: list[Script]) -> None:
        """Past the escape, quotes or expansion that ``c`` starts (or past ``c`` itself)."""
        if c == "\\":
            self.i += 2
        elif c == "'":
            end = self.s.find("'", self.i + 1)
            if end < 0:
                raise Unsupported("an unterminated quote")
            self.i = end + 1
        elif c == '"':
            self.double_quoted(scripts)
        elif c == "$":
            self.dollar(scripts)
        elif c == "`":
            scripts.append(self.backquoted())
        else:
            self.i += 1

    def balanced(self, opening: str, closing: str, depth: int) -> None:
        """Skip to the bracket that closes an arithmetic expansion (read no further)."""
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            self.i += 1
            if c == opening:
                depth += 1
            elif c == closing:
                depth -= 1
                if depth == 0:
                    return
        raise Unsupported("an unterminated arithmetic expansion")
