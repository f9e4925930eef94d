"""A small parser for the part of bash's grammar the gate understands.

It finds the structure of a command line: lists (`;`, `&`, `&&`, `||`,
newlines), pipelines (`|`, `|&`, `!`), subshells, `{ }` groups, `if`,
`while`/`until`, `for`, function definitions, simple commands with their
assignments, words and redirections, here-documents, and the command lines
inside `$(…)`, backquotes and `<(…)`/`>(…)` (parsed too, so deny rules see
them). What each word *means* is words.py's business; this module only keeps
each word's source text. The parser builds on two readers: `word_reader.py`
(where a word ends: quotes, escapes, expansions) and `heredocs.py` (delimiters
and bodies); this module reads lists, commands and redirections.

Anything else (`case`, `select`, `coproc`, `time`, `[[ ]]`, `(( ))`, array
assignments, a syntax error, an unterminated quote) raises Unsupported: the
gate then treats the whole line as unresolved. It is written for speed (a
2 KB line in well under a millisecond): runs of ordinary characters are
consumed by one regular expression.
"""

from __future__ import annotations

import re

from agentls.permissions.bash_tokens import (
    ASSIGNMENT,
    CLOSERS,
    FAST_COMMAND,
    FAST_STEP,
    FAST_WORDS,
    FUNCTION,
    LITERAL_STEP,
    METACHARS,
    PLAIN,
    REDIRECT,
    RESERVED,
    RESERVED_UNSUPPORTED,
    STEP_STOPS,
    read_items,
    read_run,
    read_substituting,
)
from agentls.permissions.heredocs import HeredocReader, heredoc_delimiter
from agentls.permissions.script import (
    ForHead,
    Literal,
    Redirect,
    Script,
    Simple,
    SourceWord,
    Unsupported,
)

__all__ = ["Literal", "Redirect", "Script", "Simple", "SourceWord", "Unsupported", "parse"]


_TAKEN, _PIPED, _NOT_TAKEN = "taken", "piped", "not taken"  # what fast_step did


def parse(source: str, *, fast: bool = True) -> Script:
    """``fast=False`` reads every command by the general path only: the fast paths
    must give the same Script (tests/gate/test_parser_paths_agree.py)."""
    parser = _Parser(source, fast)
    script = Script()
    parser.layout = script.layout
    parser.sequence(script, closers=())
    if parser.i < len(source):
        raise Unsupported(f"unexpected {source[parser.i : parser.i + 10]!r}")
    return script


class _Parser(HeredocReader):
    """Lists, pipelines, compound and simple commands, redirections; words and
    here-documents are read by the classes it builds on."""

    # -- lists and commands -------------------------------------------------

    def sequence(self, script: Script, closers: tuple[str, ...]) -> str:
        """Pipelines up to one of ``closers`` (a reserved word or ")"); returns it."""
        s = self.s
        end = len(s)
        while True:
            if self.i < end and s[self.i] in " \t\\\n#":
                self.skip_separators()
            if self.i >= end:
                return ""
            if closers:
                closer = self.peek_closer(closers)
                if closer:
                    return closer
            step = (
                (LITERAL_STEP.match(s, self.i) or FAST_STEP.match(s, self.i)) if self.fast else None
            )
            taken = self.fast_step(script, step, closers) if step is not None else _NOT_TAKEN
            if taken is _TAKEN:
                continue
            if taken is _PIPED:
                self.skip_separators()
                self.piped(script)
            else:
                self.pipeline(script)
            if self.i < end and s[self.i] in " \t\\":
                self.blanks()
            if self.i >= end:
                return ""
            c = s[self.i]
            if s.startswith(("&&", "||"), self.i):
                self.layout.append(s[self.i : self.i + 2])
                self.i += 2
            elif c in ";&":
                if s.startswith(";;", self.i):
                    raise Unsupported("';;' outside case")
                self.layout.append(c)
                self.i += 1
            elif c == "\n":
                self.newline()
            elif c == ")" and ")" in closers:
                return ")"
            elif c == "#":
                self.comment()
            else:
                word = self.peek_word_text()
                if word in closers:
                    return word
                raise Unsupported(f"unexpected {s[self.i : self.i + 10]!r}")

    def fast_step(self, script: Script, step: re.Match[str], closers: tuple[str, ...]) -> str:
        """One command of words (and plain redirections and substitutions), and the
        operator after it, read as pipeline() would read them; _PIPED when a pipe
        follows; _NOT_TAKEN when its first word may be a reserved word (the general
        path reads it then)."""
        run, operator, newline, closing, pipe = step.groups()
        if closing and ")" not in closers:
            return _NOT_TAKEN  # a stray ")": the general path says so
        words = run.split()
        first = words[0]
        if first in STEP_STOPS:
            return _NOT_TAKEN
        if step.re is LITERAL_STEP and not ("=" in first and ASSIGNMENT.match(first)):
            script.commands.append(tuple(words))  # as literal_command
        else:
            command = Simple([], [], [])
            if "$(" in run:
                if not read_substituting(command, run):
                    return _NOT_TAKEN
            elif "<" in run or ">" in run:
                read_items(command, run)
            else:
                read_run(command, run)
            script.commands.append(command)
        self.layout.append(len(script.commands) - 1)
        if operator:
            self.layout.append(operator)
        if newline:
            self.i = step.end() - 1
            self.newline()  # here-documents may be waiting for it
        else:
            self.i = step.end()
        if pipe:
            self.layout.append(pipe)
            return _PIPED
        return _TAKEN

    def skip_separators(self) -> None:
        s = self.s
        while self.i < len(s) and s[self.i] in " \t\\\n#":
            self.blanks()
            if self.i < len(s) and s[self.i] == "\n":
                self.newline()
            elif self.i < len(s) and s[self.i] == "#":
                self.comment()
            else:
                return

    def peek_closer(self, closers: tuple[str, ...]) -> str:
        if not closers:
            return ""
        if ")" in closers and self.s.startswith(")", self.i):
            return ")"
        word = self.peek_word_text()
        return word if word in closers else ""

    def peek_word_text(self) -> str:
        match = PLAIN.match(self.s, self.i)
        if match is None:
            return "{" if self.s.startswith("{", self.i) else ""
        end = match.end()
        if end < len(self.s) and self.s[end] not in METACHARS:
            return ""  # more follows (quotes, $...): not a bare reserved word
        return match.group()

    def pipeline(self, script: Script) -> None:
        s = self.s
        if self.i < len(self.s) and self.s[self.i] in " \t\\":
            self.blanks()
        if s.startswith("!", self.i) and s[self.i + 1 : self.i + 2] in (" ", "\t"):
            self.layout.append("!")
            self.i += 1
        self.piped(script)

    def piped(self, script: Script) -> None:
        """The commands of a pipeline from here, each after a pipe."""
        s = self.s
        while True:
            self.command(script)
            if self.i < len(s) and s[self.i] in " \t\\":
                self.blanks()
            if not s.startswith("|", self.i) or s.startswith("||", self.i):
                return
            pipe = "|&" if s.startswith("|&", self.i) else "|"
            self.layout.append(pipe)
            self.i += len(pipe)
            self.skip_separators()

    def literal_command(self, script: Script) -> bool:
        """A command of ordinary words up to an operator, if one starts here: no quotes,
        expansions, redirections or reserved words to read (the common case, one step)."""
        fast = FAST_COMMAND.match(self.s, self.i)
        if fast is None:
            return False
        words = fast.group(1).split()
        first = words[0]
        if first in RESERVED or ("=" in first and ASSIGNMENT.match(first)):
            return False
        self.i = fast.end()
        script.commands.append(tuple(words))
        self.layout.append(len(script.commands) - 1)
        return True

    def command(self, script: Script) -> None:
        if self.fast and self.literal_command(script):
            return
        if self.i < len(self.s) and self.s[self.i] in " \t\\":
            self.blanks()
        if self.i >= len(self.s):
            raise Unsupported("a command is missing")
        if self.s.startswith("((", self.i):
            raise Unsupported("(( ))")
        if self.s.startswith("(", self.i):
            self.layout.append("(")
            self.i += 1
            if self.sequence(script, closers=(")",)) != ")":
                raise Unsupported("an unclosed (")
            self.layout.append(")")
            self.i += 1
            self.compound_redirects(script)
            return
        head = self.peek_word_text()
        if head in RESERVED_UNSUPPORTED:
            raise Unsupported(head)
        if head in CLOSERS:
            raise Unsupported(f"unexpected {head}")
        if head == "{" and self.s[self.i + 1 : self.i + 2] in (" ", "\t", "\n"):
            self.layout.append("{")
            self.i += 1
            self.expect_closer(script, "}")
            self.compound_redirects(script)
        elif head == "if":
            self.layout.append("if")
            self.i += 2
            self.if_body(script)
        elif head in ("while", "until"):
            self.layout.append(head)
            self.i += len(head)
            self.expect_closer(script, "do")
            self.expect_closer(script, "done")
            self.compound_redirects(script)
        elif head == "for":
            self.i += 3
            self.for_body(script)
        elif head == "function":
            self.i += len(head)
            self.blanks()
            name = PLAIN.match(self.s, self.i)
            if name is None:
                raise Unsupported("function without a name")
            self.i = name.end()
            self.blanks()
            if self.s.startswith("()", self.i):
                self.i += 2
            self.function(script, name.group())
        elif head and self.is_function_definition():
            match = FUNCTION.match(self.s, self.i)
            assert match is not None
            self.i = match.end()
            self.function(script, match.group().split("(")[0].strip())
        else:
            self.simple(script)

    def is_function_definition(self) -> bool:
        return FUNCTION.match(self.s, self.i) is not None

    def function(self, script: Script, name: str) -> None:
        script.functions.append(name)
        self.skip_separators()
        self.command(script)  # the body: a compound command

    def expect_closer(self, script: Script, closer: str) -> None:
        found = self.sequence(script, closers=(closer,))
        if found != closer:
            raise Unsupported(f"no {closer}")
        self.layout.append(closer)
        self.i += len(closer)

    def if_body(self, script: Script) -> None:
        self.expect_closer(script, "then")
        while True:
            found = self.sequence(script, closers=("elif", "else", "fi"))
            if not found:
                raise Unsupported("no fi")
            self.layout.append(found)
            self.i += len(found)
            if found == "fi":
                break
            if found == "elif":
                self.expect_closer(script, "then")
        self.compound_redirects(script)

    def for_body(self, script: Script) -> None:
        self.blanks()
        name = self.word()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name.raw):
            raise Unsupported("for with an unusual variable")
        self.skip_separators()
        words: list[SourceWord] | None = None
        if self.peek_word_text() == "in":
            self.i += 2
            words = []
            while True:
                self.blanks()
                if self.i >= len(self.s) or self.s[self.i] in ";\n":
                    break
                if self.s[self.i] == "#":
                    self.comment()
                    break
                word = self.word()
                words.append(word)
                script.loose_words.append(word)
        script.loop_names.append(name.raw)
        self.layout.append(ForHead(name.raw, words))
        self.blanks()
        if self.s.startswith(";", self.i):
            self.layout.append(";")
            self.i += 1
        self.expect_closer(script, "do")
        self.expect_closer(script, "done")
        self.compound_redirects(script)

    def compound_redirects(self, script: Script) -> None:
        while True:
            self.blanks()
            redirect = self.redirect()
            if redirect is None:
                return
            script.redirects.append(redirect)
            self.layout.append(redirect)

    def simple(self, script: Script) -> None:
        command = Simple([], [], [])
        s = self.s
        while True:
            fast = FAST_WORDS.match(s, self.i) if self.fast else None
            if fast is not None:
                # Words without substitutions or redirections (the common case), read
                # in one step; split by blanks unless quotes or escapes may hold some.
                self.i = fast.end()
                read_run(command, fast.group())
                continue
            if self.i < len(s) and s[self.i] in " \t\\":
                self.blanks()
            if self.s.startswith("&>", self.i):
                command.redirects.append(self.redirect())  # type: ignore[arg-type]
                continue
            if self.i >= len(self.s) or self.s[self.i] in "\n;&|)":
                break
            if self.s[self.i] == "#":  # a word that starts with # starts a comment
                self.comment()
                break
            redirect = self.redirect()
            if redirect is not None:
                command.redirects.append(redirect)
                continue
            if self.s[self.i] == "(":
                raise Unsupported("'(' inside a command")
            word = self.word()
            if not command.words and ASSIGNMENT.match(word.raw):
                if self.s.startswith("(", self.i):
                    raise Unsupported("an array assignment")
                command.assignments.append(word)
            else:
                command.words.append(word)
        if not (command.words or command.assignments or command.redirects):
            raise Unsupported("an empty command")
        script.commands.append(command)
        self.layout.append(len(script.commands) - 1)

    def redirect(self) -> Redirect | None:
        match = REDIRECT.match(self.s, self.i)
        if match is None:
            if self.s.startswith("{", self.i) and re.match(r"\{\w+\}[<>]", self.s[self.i :]):
                raise Unsupported("a redirection to a named descriptor")
            return None
        fd, op = match.group(1) or "", match.group(2)
        if self.s.startswith("(", match.end()) and op in ("<", ">"):
            return None  # process substitution: a word
        self.i = match.end()
        self.blanks()
        if op in (">&", "<&"):
            dup = re.match(r"\d+-?|-", self.s[self.i :])
            if dup is not None and (
                self.i + dup.end() >= len(self.s) or self.s[self.i + dup.end()] in METACHARS
            ):
                self.i += dup.end()
                return Redirect(op, None, fd=fd, dup=dup.group())
        procsub = self.s.startswith(("<(", ">("), self.i)
        if self.i >= len(self.s) or (self.s[self.i] in METACHARS and not procsub):
            raise Unsupported(f"{op} without a target")
        target = self.word()
        redirect = Redirect(op, target, fd=fd)
        if op in ("<<", "<<-"):
            delimiter, quoted = heredoc_delimiter(target.raw)
            self.heredocs.append((redirect, delimiter, quoted))
            redirect.quoted = quoted
        return redirect

    # -- command lines inside words -------------------------------------------

    def inner(self, closer: str) -> Script:
        """The command line inside $(…) or <(…), parsed with this parser."""
        script = Script()
        saved, self.heredocs = self.heredocs, []
        outer, self.layout = self.layout, script.layout
        found = self.sequence(script, closers=(closer,))
        self.heredocs, self.layout = saved, outer
        if found != closer:
            raise Unsupported("an unclosed substitution")
        self.i += 1
        return script

    def backquoted(self) -> Script:
        s = self.s
        end = self.i + 1
        while end < len(s) and s[end] != "`":
            end += 2 if s[end] == "\\" else 1
        if end >= len(s):
            raise Unsupported("an unterminated backquote")
        text = re.sub(r"\\([`\\$])", r"\1", s[self.i + 1 : end])
        self.i = end + 1
        return parse(text, fast=self.fast)
