"""git, read by a closed grammar: its global options and what each subcommand does.

git's global options are stripped (``-c`` only for harmless keys) and the
stripped command is listed too, so a rule naming the subcommand sees it. A
subcommand that only reads (``status``, ``diff``, ``log`` …, ``branch`` and
``tag`` in their listing forms) writes nothing but a file an ``--output``
option names; every other known subcommand writes git's own files, a control
file (a person must approve it, and only then is ``.git`` writable in the
sandbox); an alias or an external ``git-NAME`` program runs what the
configuration says, so it makes the line unresolved.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from agentls.permissions.words import Word


class Walker(Protocol):
    root: Path | None
    changes_dir: bool
    blind_writes: list[str]

    def fail(self, why: str) -> None: ...
    def ask(self, why: str) -> None: ...
    def also(self, words: Sequence[Word]) -> None: ...
    def write(self, path: str) -> None: ...


# Not --bare (the folder itself is then the repository: a workspace folder the model
# wrote, with its own config) nor --git-dir, --work-tree, --exec-path, --namespace.
_GLOBAL_FLAGS = frozenset({
    "-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs",
    "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks",
})  # fmt: skip
_SAFE_CONFIG = frozenset({
    "core.quotepath", "user.name", "user.email", "init.defaultbranch", "log.showsignature",
    "diff.noprefix", "column.ui", "i18n.logoutputencoding",
})  # fmt: skip
# Subcommands that read the repository and write nothing (but --output files).
READS = frozenset({
    "status", "diff", "log", "show", "blame", "annotate", "rev-parse", "ls-files", "ls-tree",
    "cat-file", "describe", "shortlog", "grep", "rev-list", "for-each-ref", "show-ref",
    "whatchanged", "diff-tree", "diff-index", "diff-files", "name-rev", "merge-base",
    "count-objects", "var", "check-ignore", "check-attr", "check-ref-format", "cherry",
    "range-diff", "version", "help", "show-branch", "verify-commit", "verify-tag",
    "ls-remote",
})  # fmt: skip
# Subcommands that read in some forms (listed by _listing) and write in the others.
_SOMETIMES = frozenset({"branch", "tag", "remote", "stash", "worktree", "reflog", "notes"})
# Subcommands that write git's files (the index, refs, objects, config, hooks).
WRITES = frozenset({
    "add", "commit", "checkout", "switch", "restore", "reset", "rebase", "merge", "pull",
    "fetch", "push", "init", "clone", "mv", "rm", "apply", "am", "cherry-pick", "revert",
    "gc", "prune", "repack", "fsck", "clean", "format-patch", "archive", "bundle",
    "update-index", "update-ref", "symbolic-ref", "read-tree", "write-tree", "commit-tree",
    "hash-object", "mktag", "mktree", "pack-refs", "replace", "sparse-checkout",
    "maintenance", "citool", "gui", "rerere", "unpack-objects", "index-pack",
    "pack-objects", "prune-packed", "fast-import", "fast-export", "mailinfo", "mailsplit",
    "stripspace", "interpret-trailers", "request-pull", "config",
})  # fmt: skip
# Options of a subcommand that run a program.
_RUNS = {"rebase": ("-x", "--exec"), "am": ("--exec",)}
_OUTPUT = ("--output", "-o")


def read(words: Sequence[Word], walk: Walker) -> None:
    """Judge one git command line (``words[0]`` is git)."""
    rest = list(words[1:])
    i = 0
    stripped = False
    while i < len(rest):
        word = rest[i]
        if not word.static:
            break  # read below, once deny rules can see this spelling
        text = word.value
        if text in ("-C", "-c") and i + 1 < len(rest):
            value = rest[i + 1]
            if not value.static:
                walk.fail(f"git {text} is given a value computed at run time")
                return
            if text == "-c" and not _safe_config(value.value):
                walk.fail(f"git -c {value.value.split('=')[0]} may run programs")
                return
            if text == "-C":
                walk.changes_dir = True
            i += 2
            stripped = True
        elif text in _GLOBAL_FLAGS:
            i += 1
            stripped = True
        elif text in ("--version", "--help", "-h", "-v"):
            return
        elif text.startswith("-"):
            walk.fail(f"git is given a global option this analysis does not know ({text})")
            return
        else:
            break
    if stripped:
        # The same git run, as a rule naming its subcommand sees it. git itself stays a
        # command of its own (not a wrapper): allow rules must cover both spellings.
        walk.also([words[0], *rest[i:]])
    if i >= len(rest):
        return  # git alone prints its help
    if not rest[i].static:
        walk.fail(f"git is given a word computed at run time ({rest[i].value})")
        return
    subcommand = rest[i].value
    arguments = rest[i + 1 :]
    if subcommand == "config":
        _config(arguments, walk)
        return
    for option in _RUNS.get(subcommand, ()):
        if any(w.value == option or w.value.startswith(option + "=") for w in arguments):
            walk.fail(f"git {subcommand} {option} runs a program")
            return
    if subcommand in READS or (subcommand in _SOMETIMES and _listing(subcommand, arguments)):
        _outputs(subcommand, arguments, walk)
    elif subcommand in WRITES or subcommand in _SOMETIMES:
        walk.write(".git")
        _outputs(subcommand, arguments, walk)
    else:
        walk.fail(
            f"git {subcommand} is an alias or a program this analysis does not know: "
            "it runs what git's configuration says"
        )


_BRANCH_CHANGES = frozenset({
    "-d", "-D", "-m", "-M", "-c", "-C", "-f", "--delete", "--move", "--copy", "--force",
    "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-t", "--track",
})  # fmt: skip
_TAG_CHANGES = frozenset({
    "-a", "-s", "-u", "-m", "-F", "-f", "-d", "--annotate", "--sign", "--local-user",
    "--message", "--file", "--force", "--delete", "-e", "--edit",
})  # fmt: skip


def _listing(subcommand: str, arguments: Sequence[Word]) -> bool:
    """Whether branch, tag, remote, stash … are given a form that only lists."""
    operands = [w.value for w in arguments if not w.value.startswith("-")]
    options = {w.value.split("=")[0] for w in arguments if w.value.startswith("-")}
    if subcommand == "branch":
        return not options & _BRANCH_CHANGES and (not operands or bool(options & {"-l", "--list"}))
    if subcommand == "tag":
        lists = options & {"-l", "--list", "-v", "--verify"}
        return not options & _TAG_CHANGES and (not operands or bool(lists))
    first = operands[0] if operands else ""
    if subcommand == "remote":
        return first in ("", "show", "get-url")
    if subcommand in ("stash", "worktree", "notes"):
        return first in ("list", "show")
    return first in ("", "show")  # reflog


def _outputs(subcommand: str, arguments: Sequence[Word], walk: Walker) -> None:
    """Files an --output (or format-patch's -o folder) option writes."""
    for index, word in enumerate(arguments):
        text = word.value
        for option in _OUTPUT:
            if option == "-o" and subcommand not in ("format-patch", "archive"):
                continue
            if text == option and index + 1 < len(arguments):
                target = arguments[index + 1]
                if target.static:
                    walk.write(target.value)
                else:
                    walk.blind_writes.append(f"git {subcommand} writes a path computed at run time")
            elif text.startswith(option + "=") and option.startswith("--"):
                walk.write(text.partition("=")[2])


def _safe_config(setting: str) -> bool:
    key = setting.split("=", 1)[0].lower()
    return key.startswith(("color.", "advice.")) or key in _SAFE_CONFIG


_CONFIG_READS = frozenset({
    "--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--get-color",
    "--get-colorbool",
})  # fmt: skip
_CONFIG_WRITES = frozenset({
    "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section",
    "-e", "--edit", "--file", "-f", "--blob",
})  # fmt: skip
_CONFIG_VERBS = [["set"], ["unset"], ["edit"], ["rename-section"], ["remove-section"]]


def _config(rest: Sequence[Word], walk: Walker) -> None:
    """`git config` that sets anything writes git's own configuration: a control file."""
    if any(not w.static for w in rest):
        walk.blind_writes.append("git config with words computed at run time")
        return
    options = {w.value.split("=")[0] for w in rest if w.value.startswith("-")}
    operands = [w.value for w in rest if not w.value.startswith("-")]
    if options & _CONFIG_READS or operands[:1] in (["get"], ["list"]):
        return
    if options & _CONFIG_WRITES or operands[:1] in _CONFIG_VERBS or len(operands) >= 2:
        if options & {"--global", "--system"}:  # read by every repository: a control file
            walk.blind_writes.append("writes git's global configuration")
        else:
            walk.write(".git/config")
