"""The tokens of the bash subset the gate reads, and the one-match readers built on them.

Runs of ordinary characters, and whole steps of a chain (words, plain redirections
and the operator after them), are each consumed by one possessive regular expression,
so a line that is not of that shape is told so without backtracking.
"""

from __future__ import annotations

import re

from agentls.permissions.script import Redirect, Script, Simple, SourceWord

PLAIN = re.compile(r"[^\s|&;()<>'\"\\$`]+")
QUOTED_RUN = re.compile(r'[^"\\$`]+')
FUNCTION = re.compile(r"[^\s|&;()<>'\"\\$`]++[ \t]*+\([ \t]*+\)")
# A whole simple command of plain words (no glob, brace or tilde characters either,
# so each word means itself), up to an operator that ends it; not "&>", a redirection.
# Possessive: a line that is not such a command is told so without backtracking.
LITERAL_WORD = r"[A-Za-z0-9_./,:@%+=-]++"
FAST_COMMAND = re.compile(
    rf"[ \t]*+({LITERAL_WORD}(?:[ \t]++{LITERAL_WORD})*+)[ \t]*+(?=[\n;|)]|&(?!>)|\Z)"
)
RESERVED = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in",
             "function", "case", "esac", "select", "coproc", "time", "{", "}", "!"}  # fmt: skip
# A word with no substitution in it: ordinary characters, single quotes, escapes,
# double quotes, and $ that starts no ( { [ or ' (so no command, arithmetic or
# parameter expansion with operators, and no $'…' to read).
DOUBLE_QUOTED = r'"(?:[^"\\$`]++|\\[\s\S]|\$(?![({\[\'`]))*+"'
UNQUOTED = r"[^\s|&;()<>'\"\\$`]++|'[^']*+'|\\[\s\S]|\$(?![({\['])"
SIMPLE_WORD = f"(?:{UNQUOTED}|{DOUBLE_QUOTED})++"
# One or more such words, each ended by a blank or an operator (a word starting with
# # starts a comment; a backslash-newline before a word is a blank).
FAST_WORDS = re.compile(rf"(?:[ \t]*+(?!#|\\\n){SIMPLE_WORD}(?=[ \t\n;&|)]|\Z))++")
ONE_WORD = re.compile(SIMPLE_WORD)
# In a step, a word may also hold $(…) around plain words only: a command substitution
# whose command line is one literal command (read here, as inner() would read it).
LITERAL_SUBSTITUTION = rf"\$\([ \t]*+{LITERAL_WORD}(?:[ \t]++{LITERAL_WORD})*+[ \t]*+\)"
STEP_WORD = f"(?:{UNQUOTED}|{LITERAL_SUBSTITUTION}|{DOUBLE_QUOTED})++"
SUBSTITUTIONS = re.compile(rf"'[^']*+'|\\[\s\S]|{DOUBLE_QUOTED}|\$\(([^)]*+)\)")
# The list operator that ends a step (captured), and the blanks after it; a newline apart (the
# here-documents waiting for it start right after it); the end of the line or of a
# subshell or substitution; or a pipe (the pipeline goes on).
STEP_END = r"[ \t]*+(?:(&&|\|\||;(?!;)|&(?![>&]))[ \t]*+|(\n)|\Z|(?=(\)))|(\|&?))"
# A redirection to or from such a word (no duplication, here-document or noclobber).
# Or a duplication written without a blank (2>&1, >&-).
DUPLICATION = r"[0-9]*+(>&|<&)(?:[0-9]++-?|-)(?=[ \t\n;&|)]|\Z)"
FAST_REDIRECT = (
    rf"[0-9]*+(?:>>|>(?![>&|(])|<(?![<>&(]))[ \t]*+(?!\\\n){STEP_WORD}(?=[ \t\n;&|)]|\Z)"
    rf"|{DUPLICATION.replace('(>&|<&)', '(?:>&|<&)')}"
)
FAST_ITEM = re.compile(
    rf"[ \t]*+(?:([0-9]*+)(>&|<&)([0-9]++-?|-)(?=[ \t\n;&|)]|\Z)"
    rf"|([0-9]*+)(>>|>|<)[ \t]*+({STEP_WORD})|({STEP_WORD}))"
)  # one item of a FAST_STEP match (whose groups cannot capture: possessive)
# Such words and redirections, and the operator after them (not ";;"): the step a
# chain of commands repeats, in one match.
FAST_STEP = re.compile(
    rf"((?:[ \t]*+(?:{FAST_REDIRECT}|(?!#|\\\n){STEP_WORD}(?=[ \t\n;&|)]|\Z)))++)" + STEP_END
)
# The same for a command of plain words only (the most common step, and the quickest).
LITERAL_STEP = re.compile(rf"[ \t]*+({LITERAL_WORD}(?:[ \t]++{LITERAL_WORD})*+){STEP_END}")
BLANKS = re.compile(r"(?:[ \t]|\\\n)+")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
REDIRECT = re.compile(r"(\d+)?(&>>|&>|<<<|<<-|<<|<>|>>|>\||>&|<&|>|<)")
RESERVED_UNSUPPORTED = {"case", "select", "coproc", "time", "[[", "((", "esac", "]]"}
CLOSERS = {"then", "else", "elif", "fi", "do", "done", "}"}
# A first word that may make the command more than a simple one.
STEP_STOPS = frozenset(RESERVED | RESERVED_UNSUPPORTED | CLOSERS)
METACHARS = " \t\n;&|()<>"


def read_run(command: Simple, run: str) -> None:
    """Words without substitutions or redirections (a FAST_WORDS match), split by
    blanks unless quotes or escapes may hold some."""
    quoted = "'" in run or '"' in run or "\\" in run
    for text in ONE_WORD.findall(run) if quoted else run.split():
        if command.words or not ASSIGNMENT.match(text):
            command.words.append(SourceWord(text))
        else:
            command.assignments.append(SourceWord(text))


def read_items(command: Simple, run: str) -> None:
    """Words and redirections (a FAST_STEP match), as simple() reads them."""
    for item in FAST_ITEM.finditer(run):
        dup_fd, duplication, source, fd, op, target, text = item.groups()
        if duplication is not None:
            command.redirects.append(Redirect(duplication, None, fd=dup_fd, dup=source))
        elif op is not None:
            command.redirects.append(Redirect(op, SourceWord(target), fd=fd))
        elif command.words or not ASSIGNMENT.match(text):
            command.words.append(SourceWord(text))
        else:
            command.assignments.append(SourceWord(text))


def read_substituting(command: Simple, run: str) -> bool:
    """read_items for words that may hold $(…) with one literal command; False (and
    nothing read) when such a command may be more (a reserved word, an assignment)."""
    read_items(command, run)
    for word in (*command.assignments, *command.words, *(r.target for r in command.redirects)):
        if word is None or "$(" not in word.raw:
            continue
        scripts: list[Script] = []
        for found in SUBSTITUTIONS.finditer(word.raw):
            inner = found.group(1)
            if inner is None:
                continue  # quoted or escaped text
            words = inner.split()
            first = words[0]
            if first in STEP_STOPS or ("=" in first and ASSIGNMENT.match(first)):
                return False
            scripts.append(Script([tuple(words)]))
        word.scripts = scripts
    return True
