"""Language intelligence: agentls's own client of real language servers (pygls).

`discover_language_servers()` lists the servers agentls would use here,
`describe_language_servers()` every known one with why it would not run and how to
install it, and `missing_here()` the files of a workspace none would check (for
`agentls doctor`).

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

Language intelligence for tools: agentls's own language servers (pygls's
`LanguageClient`) and the editor's answers.

`config.py` (`languageServers`, `problems`, defaults found on `PATH`, validated once per
process and their choice kept per `PATH` until the doctor looks again
(`forget_lookups`), `discover_language_servers`;
`describe_language_servers`/`missing_here` for the doctor: each server, would it run,
why not, how to install)

`connection.py` (one server, the `Child` its `supervision` lifecycle drives: started as
a command through `workspace/sandbox.server_launch`, the LSP handshake and shutdown;
bounded requests; diagnostics pulled or pushes matched per version, a late first pull
not turning pulls off)

`lazy.py` (lsprotocol loaded only when a server is first needed), `unavailable.py`
(the one error a server's absence, crash or silence becomes)

`tsserver.py` (typescript-language-server's problems pulled from tsserver, since its
pushes carry no version)

`hub.py` (`ServerHub`: a process registry only, on `supervision.Registry`: servers per
workspace, server and project, shared by the workspace's sessions, stopped with the
last, replaced when their config or sandbox changes; their status for the editors)

`own_servers.py` (`OwnServers`: agentls's own servers as one `LanguageIntelligence`:
syncs what the Workspace reads, asks the servers)

`editor_answers.py` (`EditorAnswers`: the editor's answers to the `agentls/*` requests
as another; a request left unanswered is `Unanswered`)

`router.py` (`RoutedIntelligence`, a session's intelligence: the two composed by
`languageIntelligence`: auto, the editor where it answers (and offers the request),
agentls's own for the rest, for the files the editor does not check and when it gives no
answer; editor, an unanswered request reported; agentls, the editor never asked; it
tells listeners the files a rename is about to change)

`languages.py` (`Languages`, what the conversation holds: the hub, the face's editor,
the status told to it as `agentls/languageServers`, and `attach`, which builds each
session's router; the only module that builds them)

`conversions.py` (every conversion between LSP and the tools' types, public: UTF-16
columns, URIs, diagnostics as problems, symbols, locations, workspace edits, an editor's
JSON as lsprotocol types)

`answers.py` (`Answers`: what both answerers make of an answer for one Workspace: its
paths, the lines it reads, whole-file changes, all through one `SecretScreen`)

`withholding.py` (`SecretScreen`: every answer, the servers' and the editor's, screened
for the Workspace's `secrets` (its `SecretFiles`, under the session's `secretFiles`): a
location, symbol or problem in a secret file or a link to one, other than the file the
call names, is left out (a withheld location's line is never read) and counted in the
answer's `Withheld`, by file, for the tool's note; problems after edits are screened
too, before the observation and the log)

`secret_text.py` (a problem whose message quotes a secret file, such as a literal type
inferred from it: the workspace's secret-named files found by a walk kept 30 s, read
when their stat moves, never shown; looked up only for what a message quotes that its
own file does not hold)

`after_edits.py` (the problems-after-edits turn hook, its `Baseline` of the problems
before a turn's edits (and before a rename's, told by the router), and the `problems`
event). `tests/unit/intelligence/test_import_graph.py` holds the cut: no cycle in the
package (TYPE_CHECKING imports included), the hub reaches no answerer, the two answerers
reach neither each other nor the router, the router neither of them, no private name
imported across modules.
"""

from agentls.intelligence.config import (
    ServerChoice,
    ServerStatus,
    describe_language_servers,
    discover_language_servers,
    missing_here,
)

__all__ = [
    "ServerChoice",
    "ServerStatus",
    "describe_language_servers",
    "discover_language_servers",
    "missing_here",
]
