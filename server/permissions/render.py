"""A line as agentls read it, spelled so that bash reads it the same way.

When rules (an allow rule, a mode, ``--yes``) rather than a person who saw the
line approve a command, what runs is this rendering, not the model's text: each
word as the value it was read to (words.py), the operators and reserved words
the parser found (script.LAYOUT_TOKENS), redirections to the targets judged,
here-documents with a delimiter chosen here. Wherever bash would have read the
source differently from the gate (a quote, a continuation line, a delimiter),
that other reading is not what runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentls.permissions.script import LAYOUT_TOKENS, ForHead, Redirect, Script
from agentls.permissions.words import read_word

NO_HEREDOCS: tuple[str, ...] = ()
# A command's rendering and the here-document bodies that follow the next newline.
Rendered = tuple[str, tuple[str, ...]]

_DELIMITER = "AGENTLS_EOF"
_PARAMETER = re.compile(
    r"\$(?:\{#?[A-Za-z_][A-Za-z0-9_]*(?::?[-+][A-Za-z0-9_./@%,:+=-]*)?\}"
    r"|[A-Za-z_][A-Za-z0-9_]*|[0-9?#$!@*-])"
)


def line(script: Script, commands: Sequence[Rendered]) -> str | None:
    """The whole line from its layout and its commands' renderings; None when a part
    cannot be rendered (then the line is not run on a rule's word)."""
    out: list[str] = []
    pending: list[str] = []
    seen = 0
    for step in script.layout:
        if isinstance(step, int):
            if step != seen:
                return None  # the commands are laid out once each, in order
            seen += 1
            text, heredocs = commands[step]
            _token(out, text)
            pending.extend(heredocs)
        elif isinstance(step, str):
            if step not in LAYOUT_TOKENS:
                return None
            if step == "\n":
                out.append("\n")
                out.extend(pending)
                pending.clear()
            else:
                _token(out, step)
        elif isinstance(step, ForHead):
            head = _for_head(step)
            if head is None:
                return None
            _token(out, head)
        else:
            rendered = redirect(step)
            if rendered is None:
                return None
            _token(out, rendered[0])
            pending.extend(rendered[1])
    if seen != len(commands):
        return None
    if pending:
        out.append("\n")
        out.extend(pending)
    return "".join(out)


def _token(out: list[str], text: str) -> None:
    if out and not out[-1].endswith("\n"):
        out.append(" ")
    out.append(text)


def _for_head(head: ForHead) -> str | None:
    if head.words is None:
        return f"for {head.name}"
    words = [read_word(word.raw).rendered for word in head.words]
    if not all(words):
        return None
    return " ".join(["for", head.name, "in", *words])


def redirect(node: Redirect) -> Rendered | None:
    """One redirection as it runs; a here-document's body comes after the newline."""
    if node.target is None:
        return f"{node.fd}{node.op}{node.dup}", NO_HEREDOCS
    if node.fd and node.op.startswith("&"):
        return None  # bash would read the number as a word of its own
    if node.op in ("<<", "<<-"):
        return _heredoc(node)
    word = read_word(node.target.raw).rendered
    if not word:
        return None
    return f"{node.fd}{node.op} {word}", NO_HEREDOCS


def _heredoc(node: Redirect) -> Rendered | None:
    body = node.body or ""
    if node.quoted:
        delimiter = _delimiter(body)
        return f"{node.fd}<<'{delimiter}'", (body + delimiter + "\n",)
    pieces = body_pieces(body)
    if isinstance(pieces, str):
        return None
    if not any(expands for expands, _ in pieces):
        literal = "".join(text for _, text in pieces)
        delimiter = _delimiter(literal)
        return f"{node.fd}<<'{delimiter}'", (literal + delimiter + "\n",)
    text = "".join(piece if expands else _escaped(piece) for expands, piece in pieces)
    delimiter = _delimiter(text)
    return f"{node.fd}<<{delimiter}", (text + delimiter + "\n",)


def body_problem(body: str) -> str:
    """Why an unquoted here-document body cannot be read ("" when it can)."""
    pieces = body_pieces(body)
    return pieces if isinstance(pieces, str) else ""


def body_pieces(body: str) -> list[tuple[bool, str]] | str:
    """An unquoted here-document body as bash expands it: literal text and the
    parameter expansions it performs; or why it is not read (a substitution)."""
    pieces: list[tuple[bool, str]] = []
    literal: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            nxt = body[i + 1 : i + 2]
            if nxt in ("$", "`", "\\"):
                literal.append(nxt)
                i += 2
                continue
            if nxt == "\n":
                i += 2  # joined before (grammar.py); kept for a body read alone
                continue
            literal.append(c)
            i += 1
        elif c == "`":
            return "expands a here-document body bash evaluates (command substitution)"
        elif c == "$":
            nxt = body[i + 1 : i + 2]
            if nxt in ("(", "["):
                return "expands a here-document body bash evaluates (a substitution)"
            parameter = _PARAMETER.match(body, i)
            if parameter is None:
                if nxt == "{":
                    return "expands a here-document body bash evaluates (${…})"
                literal.append(c)
                i += 1
                continue
            if literal:
                pieces.append((False, "".join(literal)))
                literal.clear()
            pieces.append((True, _braced(parameter.group())))
            i = parameter.end()
        else:
            literal.append(c)
            i += 1
    if literal:
        pieces.append((False, "".join(literal)))
    return pieces


def _braced(parameter: str) -> str:
    return parameter if parameter.startswith("${") else "${" + parameter[1:] + "}"


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("`", "\\`")


def _delimiter(body: str) -> str:
    lines = set(body.split("\n"))
    delimiter = _DELIMITER
    count = 0
    while delimiter in lines:
        count += 1
        delimiter = f"{_DELIMITER}_{count}"
    return delimiter
