"""Here-documents: a delimiter read as bash reads its word, and the bodies read at
the newline that ends the command they belong to."""

from __future__ import annotations

from agentls.permissions.script import Redirect, Step, Unsupported
from agentls.permissions.word_reader import WordReader
from agentls.permissions.words import read_word


class HeredocReader(WordReader):
    """A word reader that also keeps the line's layout and reads here-document bodies:
    each `<<` waits for the next newline, where its body is read."""

    def __init__(self, source: str, fast: bool = True) -> None:
        super().__init__(source, fast)
        self.heredocs: list[tuple[Redirect, str, bool]] = []  # waiting for the next newline
        self.layout: list[Step] = []  # of the script being read (its operators, its commands)

    def newline(self) -> None:
        self.i += 1
        self.layout.append("\n")
        pending, self.heredocs = self.heredocs, []
        for redirect, delimiter, quoted in pending:
            strip = redirect.op == "<<-"
            lines: list[str] = []
            while self.i < len(self.s):
                line = self.heredoc_line(quoted)
                if strip:
                    line = line.lstrip("\t")
                if line == delimiter:
                    break
                lines.append(line + "\n")
            redirect.body = "".join(lines)

    def heredoc_line(self, quoted: bool) -> str:
        """The next line of a here-document body. Where the delimiter is not quoted,
        bash joins a line that ends in an odd number of backslashes with the next
        before it compares it with the delimiter, so this does too."""
        s = self.s
        parts: list[str] = []
        while True:
            end = s.find("\n", self.i)
            end = len(s) if end < 0 else end
            line = s[self.i : end]
            self.i = min(end + 1, len(s))
            if quoted or end >= len(s) or (len(line) - len(line.rstrip("\\"))) % 2 == 0:
                parts.append(line)
                return "".join(parts)
            parts.append(line[:-1])


def heredoc_delimiter(raw: str) -> tuple[str, bool]:
    """A here-document's delimiter as bash reads its word: quotes removed, nothing
    expanded (``$X`` stays ``$X``; ``$'…'`` is decoded), and whether any part of it
    was quoted (then the body is literal)."""
    if not any(c in raw for c in "'\"\\$`"):
        return raw, False
    if "`" in raw or "$(" in raw or "${" in raw or "\\\n" in raw:
        raise Unsupported("a here-document delimiter with an expansion")
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            out.append(raw[i + 1 : i + 2])
            quoted = True
            i += 2
        elif c == "'":
            end = raw.find("'", i + 1)
            if end < 0:
                raise Unsupported("an unterminated quote")
            out.append(raw[i + 1 : end])
            quoted = True
            i = end + 1
        elif raw.startswith("$'", i):
            end = i + 2
            while end < len(raw) and raw[end] != "'":
                end += 2 if raw[end] == "\\" else 1
            decoded = read_word(raw[i : end + 1])
            if not decoded.static:
                raise Unsupported("a here-document delimiter it cannot read")
            out.append(decoded.value)
            quoted = True
            i = end + 1
        elif c == '"' or raw.startswith('$"', i):
            i += 2 if c == "$" else 1
            while i < len(raw) and raw[i] != '"':
                if raw[i] == "\\" and raw[i + 1 : i + 2] in ('"', "\\", "$", "`"):
                    i += 1
                out.append(raw[i])
                i += 1
            if i >= len(raw):
                raise Unsupported("an unterminated quote")
            quoted = True
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out), quoted
