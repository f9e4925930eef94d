"""The built-in agent tools, written only against the Workspace interface.

One module per tool (the language tools through `ToolContext.intelligence`); what each
file holds:

`changes.py`: What edit_file and write_file share: stale-read checks, rejection, diffs.
`code_intel.py`: What the language-server tools share: the intelligence, a symbol named
on a line, and how an answer is shown (with why some of it is withheld: it came from
secret files).
`definition.py`: definition and references: where a symbol named on a line is defined,
and used.
`edit_file.py`: edit_file: replace exact text in a file, refusing stale or ambiguous
edits.
`list_files.py`: list_files: the files under a folder, optionally filtered by a glob;
.gitignore honoured.
`propose_plan.py`: propose_plan: in plan mode, the plan put to the person, who switches
to `default` or `accept-edits` (the runtime asks and switches) or keeps planning.
`problems.py`: problems: what the language servers report for a file, or for the files
they have open.
`process_output.py`: process_output: what a background process wrote since it was last
read, and its state.
`process_stop.py`: process_stop: stop a background process (TERM, then KILL after a
grace) and give its last output.
`process_text.py`: What those three tell the model of a background process (new output,
then one line with its state and what to do next).
`read_file.py`: read_file: a text file's lines, numbered like ``cat -n``; binary files
are described.
`remember.py`: remember: propose a fact worth keeping across sessions (kept only at a
person's yes).
`rename.py`: rename: a symbol renamed everywhere by the language server, one reviewed
change of every file.
`run_command.py`: run_command: run a shell command in the workspace root, output
bounded, time limited; or start it in the background (``background``) in the session's
sandbox, where it runs until it is stopped.
`search.py`: search: lines matching a regex across the workspace's files; .gitignore
honoured.
`symbols.py`: symbols: a file's outline, or the workspace's symbols matching a query.
`update_plan.py`: update_plan: the model's checklist of the task's steps, shown to the
person (the runtime logs it and tells the faces); changes nothing.
`write_file.py`: write_file: create a file, or replace a file's whole content.
"""

from __future__ import annotations

from typing import Any

from agentls.tools.definition import DEFINITION, REFERENCES
from agentls.tools.edit_file import EDIT_FILE
from agentls.tools.list_files import LIST_FILES
from agentls.tools.problems import PROBLEMS
from agentls.tools.process_output import PROCESS_OUTPUT
from agentls.tools.process_stop import PROCESS_STOP
from agentls.tools.propose_plan import PROPOSE_PLAN
from agentls.tools.read_file import READ_FILE
from agentls.tools.remember import REMEMBER
from agentls.tools.rename import RENAME
from agentls.tools.run_command import RUN_COMMAND
from agentls.tools.search import SEARCH
from agentls.tools.symbols import SYMBOLS
from agentls.tools.update_plan import UPDATE_PLAN
from agentls.tools.write_file import WRITE_FILE
from agentls.workspace.interface import ToolDefinition

BUILTIN_TOOLS: tuple[ToolDefinition[Any], ...] = (
    READ_FILE,
    LIST_FILES,
    SEARCH,
    EDIT_FILE,
    WRITE_FILE,
    RUN_COMMAND,
    PROCESS_OUTPUT,
    PROCESS_STOP,
    PROBLEMS,
    DEFINITION,
    REFERENCES,
    SYMBOLS,
    RENAME,
    REMEMBER,
    UPDATE_PLAN,
    PROPOSE_PLAN,
)


def tools_by_name() -> dict[str, ToolDefinition[Any]]:
    return {tool.name: tool for tool in BUILTIN_TOOLS}


__all__ = [
    "BUILTIN_TOOLS",
    "DEFINITION",
    "EDIT_FILE",
    "LIST_FILES",
    "PROBLEMS",
    "PROCESS_OUTPUT",
    "PROCESS_STOP",
    "PROPOSE_PLAN",
    "READ_FILE",
    "REFERENCES",
    "REMEMBER",
    "RENAME",
    "RUN_COMMAND",
    "SEARCH",
    "SYMBOLS",
    "UPDATE_PLAN",
    "WRITE_FILE",
    "tools_by_name",
]
