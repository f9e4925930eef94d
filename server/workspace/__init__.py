"""The Workspace interface and its headless implementation.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`interface.py`: the `Workspace` protocol tools are written against (`start_command`,
`processes`: the session's `BackgroundProcesses`, `end_commands`, `kill_commands`; `secrets`: its
`SecretFiles`, which search and the language answers screen by;
`apply_changes`/`ChangesOutcome`: several files as one change, all or nothing;
`read_lines`: a window of a file's lines), `ToolContext` (its `reads` know which came
from open buffers, so a turn looks again at those and at what moved, never at every file
read), `ToolDefinition`.

`local.py`: the headless `LocalWorkspace` (`restore_files` confines every path before it
writes one: a path a link leads out of the workspace is refused; such a path has no
`version`).

`lines.py`: a window of a file's lines read in chunks (`read_file`'s): each chunk
decoded and its line ends counted, only the window's lines kept and cut, so a file of
any size costs about a chunk; a NUL in the first 8 KiB ends the read.

`paths.py`: confinement, secret-file patterns and `SecretFiles` (a symlink or hard link
to a secret file is that file); `SecretPaths`, the secret-name matcher, built once per
tuple of patterns and remembering each path's verdict (the policy rebuilds it when
`secret_patterns` is replaced).

`globs.py`: the one glob engine (wcmatch, loaded on first use) for rules, search, secret
patterns and language-server file patterns (a set of `**/tail` patterns is matched
against a path's last segments; plain-name, `PREFIX*` and `*SUFFIX` tails by a set
lookup, `startswith` or `endswith`, without a regex); only `.gitignore` files are read
in git's own format.

`redaction.py`: masking secrets (here so search matches a line holding a secret only in
its masked form; text without a run of 15 key-like characters is checked only for
private-key blocks and URL passwords).

`atomic.py`: `replace_atomically`, the one way a file is replaced whole (written beside
it, then renamed over it): a person's file after an edit, the workspace settings file
when allow rules are saved (its mode kept) and the approvals of settings files, a
session's transcript, a diff opened for review, the checkpoint store's objects, refs and
config files, search's ignore files.

`filesearch.py`: listing and search (ripgrep, or the Python engine in `python_walk.py`,
which reads ignore files in git's own format; both give the same answers; ripgrep
started, read and filtered on worker threads, never on the event loop).

`process.py`: commands in their own process group, with a minimal environment, started
on a worker thread, their exit seen through a pidfd, the group's leftovers looked up off
the loop; a command behind launchers (a sandbox) gets its SIGTERM below them, so it has
its grace; `run_with_input`, a program given stdin with its stdout and stderr apart (a
hook).

`commands.py`: `SessionCommands`, a session's commands: where each runs (the session's
sandbox, else a sandbox of its own, else none; none at all where the sandbox is required
and cannot start), in the foreground to its end or in the background (the session's
`BackgroundProcesses`: ids, the limit, reads, stops, the end of the session).

`background.py`: a background command: its output taken in as it comes and before each
read (a read sees all it wrote before), its exit through a pidfd, what is left of its
group ended with it, stopped with SIGTERM then SIGKILL.

`session_sandbox.py`: one sandbox per session: a holder under bubblewrap (the session's
loopback-only network, `/tmp`, `/run`) started on the first command as a `supervision`
child, which every command joins with `nsenter` in a bwrap of its own
(`sandbox.command_layout`: its own HOME and control files read-only; a run a person
approved to write them, its own `/tmp`); it dies with agentls, and every command of the
session with it; where it cannot run, each command has a sandbox of its own.

`sandbox.py` (`session_layout` and `command_layout`: the session's sandbox and one
command inside it): bubblewrap as a boundary (where `sandbox` is `required` and it cannot
start, no command runs and no language server starts; system folders, the tool folders
on `PATH` themselves, never their parents (beside `bin` only its prefix's `lib`,
`lib64`, `libexec`, `pyvenv.cfg`; beside `shims` the version manager's installs), the
folders of the real programs their links and `#!` lines lead to, and the workspace only;
private `/tmp`, `/run` and HOME; no network); inside the writable workspace every
control file that exists bound read-only again and each folder above one bound onto
itself (a mount point cannot be renamed or removed), agentls's own folders read-only
wherever the sandbox shows them, all of which a run a person approved leaves out
(`control_writable`); files outside the workspace shown read-only on request (a hook's
own script); `server_launch`: a language server started as a command (the
minimal environment; in the sandbox the workspace read-only, no network, only its own
cache folder writable).

`control.py`: the names of control files (at any depth) and agentls's own folders
(config, state, managed settings).

`control_paths.py`: the control files that exist, found by a walk of the workspace
before every command that keeps each folder's findings by inode and mtime (a repeat
costs one `lstat` per folder; a folder changed within 2 s of being read is read again).

`roots.py`: which folder to work on (never the home folder or `/` by accident).

`language.py`: the protocol and types tools use to reach language servers (`Problem`,
`CodeLocation`, `CodeSymbol`, `FileChange`; answers as `Locations`, `Symbols` and
`ProblemReport`, each with its `Withheld`: what came from secret files and was left
out).

`hunks.py`: minimal whole-line hunks between two texts, split where editors split lines;
unified diffs for tools and reviews.
"""
