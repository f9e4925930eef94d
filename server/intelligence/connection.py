"""One language server process, through pygls's own LanguageClient.

Its `Lifecycle` (`agentls.supervision`) starts it on first need, restarts it
once after a crash, and after a second one keeps it off, saying why; this is
the `Child` it drives (the process started as a command, the LSP handshake,
shutdown). Documents are mirrored with full-text syncs and increasing versions;
diagnostics are pulled where the server answers (LSP's pull, or tsserver's own
requests through typescript-language-server), else taken from the push for the
version asked about.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound
from pygls.lsp.client import LanguageClient
from pygls.protocol import default_converter

from agentls.contracts.waiting import within
from agentls.intelligence import tsserver
from agentls.intelligence.config import LanguageServerConfig
from agentls.intelligence.unavailable import ServerUnavailable
from agentls.supervision import ChildFailed, Lifecycle
from agentls.workspace.sandbox import SandboxSettings, server_launch

log = logging.getLogger(__name__)
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
STOP_SECONDS = 3.0
PULL_PROBE_SECONDS = 1.0
PULL_PROBES = 3  # unanswered probes before a server counts as one that never answers pulls


@dataclass
class _Doc:
    version: int
    text: str
    sent: int  # the event counter when this version was sent


@dataclass
class _Push:
    version: int | None
    seen: int  # the event counter when it arrived
    items: list[types.Diagnostic]


class _Client(LanguageClient):
    def __init__(self, owner: Connection) -> None:
        super().__init__("agentls", "1", converter_factory=_lenient_converter)
        self.owner = owner

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self.owner._exited(self, server.returncode)


class Connection:
    def __init__(
        self,
        name: str,
        config: LanguageServerConfig,
        executable: str,
        root: Path,
        *,
        workspace: Path | None = None,
        sandbox: SandboxSettings | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.executable = executable
        self.root = root  # the project root it serves
        self.workspace = workspace or root  # what its sandbox shows, read-only
        self.sandbox = sandbox or SandboxSettings()
        self.client: _Client | None = None
        self.capabilities: types.ServerCapabilities | None = None
        self.docs: dict[str, _Doc] = {}
        self.pushes: dict[str, _Push] = {}
        self.warm = False  # it has loaded the project (see OwnServers._serving)
        self.lifecycle = Lifecycle(self)
        self.lifecycle.watch(self._told)
        self._initialized = False  # the handshake is done: a stop says shutdown first
        self._counter = 0
        self._pushed = asyncio.Event()
        self._pull: bool | None = None  # pull diagnostics; None: not tried yet
        self._tsserver = False  # pull through typescript-language-server's tsserver command
        self._unanswered_probes = 0
        self._stderr: asyncio.Task[None] | None = None

    def _told(self, event: str, detail: str) -> None:
        if event == "restarting":
            log.warning("%s exited; restarting it once", self.name)

    @property
    def failure(self) -> str | None:
        """Why it is given up on (None while it may run)."""
        return self.lifecycle.failure

    @property
    def alive(self) -> bool:
        client = self.client
        return client is not None and not client.stopped and _alive(client)

    @property
    def running(self) -> bool:
        return self.lifecycle.running

    async def ensure(self) -> _Client:
        """The running client, started (or restarted once after a crash) if need be."""
        try:
            await self.lifecycle.ensure()
        except ChildFailed:
            raise ServerUnavailable(self.failure or f"{self.name} was stopped") from None
        client = self.client
        if client is None:  # stopped the moment it was ready
            raise ServerUnavailable(f"{self.name} was stopped")
        return client

    # -- the Child its lifecycle drives ----------------------------------------------

    async def launch(self) -> None:
        await self._discard()  # what a crashed run left
        try:
            await self._start()
        except ServerUnavailable as exc:
            raise ChildFailed(str(exc)) from None

    async def halt(self) -> None:
        """shutdown, exit, and the process is gone (killed if it lingers)."""
        client = self.client
        if client is not None and self._initialized and self.alive:
            with contextlib.suppress(Exception):
                await within(client.shutdown_async(None), STOP_SECONDS)
                client.exit(None)
        await self._discard()

    def kill(self) -> None:
        server = self.client._server if self.client is not None else None
        if server is not None and server.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                server.kill()

    def gave_up(self, when: str) -> str:
        return f"{self.name} crashed twice; it stays off until agentls restarts"

    async def _start(self) -> _Client:
        client = _Client(self)
        self._register(client)
        self.client = client
        try:
            # A server is a command: the minimal environment, and the sandbox (workspace
            # read-only, no network, its own cache) for the workspace code it runs.
            launch = await asyncio.to_thread(
                server_launch,
                self.workspace,
                self.sandbox,
                self.name,
                [self.executable, *self.config.args],
                cwd=self.root,
            )
            await client.start_io(
                launch.argv[0], *launch.argv[1:], cwd=str(self.root), env=launch.env
            )
        except OSError as exc:
            raise ServerUnavailable(f"{self.name} could not start: {exc}") from exc
        server = client._server
        if server is not None and server.stderr is not None:
            self._stderr = asyncio.create_task(_drain(server.stderr, self.name))
        params = types.InitializeParams(
            capabilities=_CAPABILITIES,
            # Servers that watch it end with agentls, even after kill -9. In the sandbox's
            # own PID namespace that pid is not there (the server would end at once); the
            # sandbox ends it with agentls instead.
            process_id=None if launch.sandboxed else os.getpid(),
            root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(self.root.as_uri(), self.root.name)],
            initialization_options=self.config.initialization_options,
            client_info=types.ClientInfo("agentls"),
        )
        timeout = self.config.start_timeout_seconds
        try:
            result = await within(client.initialize_async(params), timeout)
        except TimeoutError:
            raise ServerUnavailable(
                f"{self.name} did not answer initialize within {timeout:g} s"
            ) from None
        except (RuntimeError, JsonRpcException) as exc:
            raise ServerUnavailable(f"{self.name} failed to initialize: {exc}") from exc
        self.capabilities = result.capabilities
        # pyright answers pulls without advertising them; others never answer: those are
        # tried briefly (see _pull_items).
        self._pull = True if result.capabilities.diagnostic_provider is not None else None
        self._unanswered_probes = 0
        commands = result.capabilities.execute_command_provider
        self._tsserver = commands is not None and tsserver.COMMAND in commands.commands
        client.initialized(types.InitializedParams())
        if self.config.settings:
            client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=self.config.settings)
            )
        self.docs.clear()
        self.pushes.clear()
        self.warm = False
        self._initialized = True
        return client

    def _register(self, client: _Client) -> None:
        @_feature(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self._counter += 1
            self.pushes[params.uri] = _Push(params.version, self._counter, list(params.diagnostics))
            self._pushed.set()
            self._pushed = asyncio.Event()

        @_feature(client, types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list[Any]:
            return [self._section(item.section) for item in params.items]

        @_feature(client, types.CLIENT_REGISTER_CAPABILITY)
        def _register_capability(params: types.RegistrationParams) -> None:
            return None

        @_feature(client, types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def _progress(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @_feature(client, types.WORKSPACE_APPLY_EDIT)
        def _apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            # Only the agent's reviewed edits change files.
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="not supported")

        for method in _IGNORED_NOTIFICATIONS:
            _feature(client, method)(_ignore)

    def _section(self, section: str | None) -> Any:
        value: Any = self.config.settings
        for part in (section or "").split("."):
            if not part:
                continue
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def _exited(self, client: _Client, code: int | None) -> None:
        if client is self.client and self.lifecycle.state == "running":  # not stopped by us
            log.warning("language server %s exited with code %s", self.name, code)
            self.lifecycle.lost(self.lifecycle.generation, "while running")

    async def sync(self, uri: str, language_id: str, text: str) -> int:
        """Make the server see ``text`` for ``uri``; returns the document version."""
        client = await self.ensure()
        doc = self.docs.get(uri)
        if doc is not None and doc.text == text:
            return doc.version
        self._counter += 1
        if doc is None:
            doc = _Doc(1, text, self._counter)
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language_id, 1, text))
            )
        else:
            doc = _Doc(doc.version + 1, text, self._counter)
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version=doc.version, uri=uri),
                    [types.TextDocumentContentChangeWholeDocument(text)],
                )
            )
        self.docs[uri] = doc
        return doc.version

    async def diagnostics(self, uri: str, wait: float) -> tuple[list[types.Diagnostic], bool]:
        """The problems of the version last synced, and whether they settled within ``wait``."""
        client = await self.ensure()
        doc = self.docs.get(uri)
        if doc is None:
            return [], True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        if self._tsserver:
            items = await self._tsserver_items(client, uri, wait)
            if items is not None:
                return items, True
        elif self._pull is not False:
            items = await self._pull_items(client, uri, wait)
            if items is not None:
                return items, True
        while True:
            push = self.pushes.get(uri)
            if push is not None and _matches(push, doc):
                return push.items, True
            left = deadline - loop.time()
            if left <= 0 or not self.running:
                return (push.items if push is not None else []), False
            with contextlib.suppress(TimeoutError):
                await within(self._pushed.wait(), left)

    async def _pull_items(
        self, client: _Client, uri: str, wait: float
    ) -> list[types.Diagnostic] | None:
        params = types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
        probing = self._pull is None
        # Shielded: a late answer still arrives (and settles a probe) instead of landing
        # on a cancelled future.
        request = asyncio.ensure_future(client.text_document_diagnostic_async(params))
        try:
            report = await within(
                asyncio.shield(request), min(wait, PULL_PROBE_SECONDS) if probing else wait
            )
        except TimeoutError:
            request.add_done_callback(self._probe_answered if probing else _drop)
            if probing:  # slow is not unsupported: a server loading its project answers late
                self._unanswered_probes += 1
                if self._unanswered_probes >= PULL_PROBES:
                    self._pull = False
            log.debug("%s: no pull diagnostics within the wait", self.name)
            return None
        except (JsonRpcException, RuntimeError) as exc:
            if probing or isinstance(exc, JsonRpcMethodNotFound):
                self._pull = False  # pushes it is, from now on
            log.debug("%s: pull diagnostics failed: %r", self.name, exc)
            return None
        self._pull = True
        items = getattr(report, "items", None)
        return list(items) if items is not None else None

    def _probe_answered(self, request: asyncio.Future[Any]) -> None:
        if request.cancelled():
            return
        failed = request.exception() is not None
        if self._pull is None:
            self._pull = not failed

    async def _tsserver_items(
        self, client: _Client, uri: str, wait: float
    ) -> list[types.Diagnostic] | None:
        calls = [client.workspace_execute_command_async(p) for p in tsserver.requests(uri)]
        answered = asyncio.gather(*calls, return_exceptions=True)
        try:  # shielded: late answers arrive on live futures and are dropped
            answers = await within(asyncio.shield(answered), wait)
        except TimeoutError:
            log.debug("%s: no tsserver diagnostics within the wait", self.name)
            return None
        items: list[types.Diagnostic] = []
        for answer in answers:
            if isinstance(answer, BaseException):
                if isinstance(answer, JsonRpcMethodNotFound):
                    self._tsserver = False
                log.debug("%s: tsserver diagnostics failed: %r", self.name, answer)
                return None
            found = tsserver.diagnostics(answer)
            if found is None:  # not a file of its projects: pushes say what there is
                return None
            items.extend(found)
        return items

    async def request(self, call: Awaitable[T], what: str) -> T:
        """A request bounded in time; a dead or silent server is ServerUnavailable."""
        timeout = self.config.request_timeout_seconds
        try:
            return await within(call, timeout)
        except TimeoutError:
            raise ServerUnavailable(
                f"{self.name} did not answer {what} within {timeout:g} s"
            ) from None
        except RuntimeError as exc:  # the process exited with the request pending
            raise ServerUnavailable(f"{self.name} stopped while answering {what}: {exc}") from exc
        except JsonRpcException as exc:
            raise ServerUnavailable(f"{self.name} could not answer {what}: {exc}") from exc

    def supports(self, capability: str) -> bool:
        caps = self.capabilities
        return caps is not None and getattr(caps, capability, None) not in (None, False)

    async def close(self) -> None:
        """Stop the server (bounded); the next need starts it again."""
        await self.lifecycle.stop()

    async def _discard(self) -> None:
        client, self.client = self.client, None
        self._initialized = False
        if client is None:
            return
        server = client._server
        if server is not None and server.returncode is None:
            with contextlib.suppress(TimeoutError, ProcessLookupError):
                await within(server.wait(), STOP_SECONDS)
            if server.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    server.kill()
        with contextlib.suppress(Exception):
            await within(client.stop(), STOP_SECONDS)  # type: ignore[no-untyped-call]
        if self._stderr is not None:
            self._stderr.cancel()
            self._stderr = None

    @property
    def pid(self) -> int | None:
        server = self.client._server if self.client is not None else None
        return server.pid if server is not None else None


def _lenient_converter() -> Any:
    """lsprotocol's converter, except for capabilities agentls never uses: ruff's
    notebook filters, for one, fail to parse and would fail the whole initialize."""
    converter = default_converter()  # type: ignore[no-untyped-call]
    base = converter.get_structure_hook(types.ServerCapabilities)

    def capabilities(data: Any, cls: type) -> Any:
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "notebookDocumentSync"}
        return base(data, cls)

    converter.register_structure_hook(types.ServerCapabilities, capabilities)
    return converter


def _feature(client: LanguageClient, method: str) -> Callable[[F], F]:
    # pygls's decorator is untyped; the handlers keep their own types.
    return cast(Callable[[F], F], client.feature(method))


# Said by servers, of no use to the agent (unknown ones make pygls warn).
_IGNORED_NOTIFICATIONS = (
    types.WINDOW_LOG_MESSAGE, types.WINDOW_SHOW_MESSAGE, types.PROGRESS, types.TELEMETRY_EVENT,
    "pyright/beginProgress", "pyright/reportProgress", "pyright/endProgress",
    "experimental/serverStatus", "$/typescriptVersion",
)  # fmt: skip


def _ignore(params: Any) -> None:
    return None


def _drop(answer: asyncio.Future[Any]) -> None:
    """An answer nobody waits for any more (read, so asyncio does not warn about it)."""
    if not answer.cancelled():
        answer.exception()


def _matches(push: _Push, doc: _Doc) -> bool:
    if push.version is not None:
        return push.version == doc.version
    return push.seen > doc.sent  # servers without versions: the first push after the change


def _alive(client: LanguageClient) -> bool:
    server = client._server
    return server is not None and server.returncode is None


async def _drain(stream: asyncio.StreamReader, name: str) -> None:
    """Read the server's stderr so a chatty server never blocks on a full pipe."""
    with contextlib.suppress(Exception):
        while line := await stream.readline():
            log.debug("%s: %s", name, line.decode("utf-8", "replace").rstrip())


_CAPABILITIES = types.ClientCapabilities(
    general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        diagnostic=types.DiagnosticClientCapabilities(),
        definition=types.DefinitionClientCapabilities(),
        references=types.ReferenceClientCapabilities(),
        document_symbol=types.DocumentSymbolClientCapabilities(
            hierarchical_document_symbol_support=True
        ),
        rename=types.RenameClientCapabilities(),
    ),
    workspace=types.WorkspaceClientCapabilities(
        configuration=True,
        workspace_folders=True,
        symbol=types.WorkspaceSymbolClientCapabilities(),
        workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
    ),
)
