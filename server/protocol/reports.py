"""The reports `agentls.mcp` and `agentls.doctor` return (`agentls doctor --json` too)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agentls.protocol.wire import AbsentUnlessGiven, Omittable, WireModel

# --- agentls.mcp ---------------------------------------------------------------


class McpTool(WireModel):
    name: str = Field(description="as the model sees it: mcp__<server>__<tool>")
    server_name: str = Field(description="as the server calls it")
    description: str
    read_only: bool = Field(description="the server's readOnlyHint")


class McpServerReport(WireModel):
    workspace: str
    name: str
    transport: Literal["stdio", "http", "none"]
    target: str = Field(description="the command line or the URL; never env or headers")
    status: Literal["ready", "failed", "starting", "stopped", "disabled"]
    error: str | None
    restarts: int
    tools: list[McpTool]
    notes: list[str] = Field(description="tools left out, and why")


# --- agentls.doctor -------------------------------------------------------------


class PythonInfo(WireModel):
    version: str
    executable: str


class ContextWindowInfo(WireModel):
    tokens: int
    source: str = Field(description="where the figure came from: a setting, the model table, "
                        "the model's server, or assumed")  # fmt: skip


class ReasoningInfo(WireModel):
    level: str | None = Field(description="off, low, medium or high")
    chosen: bool = Field(description="set by the `reasoning` setting (else the model's default)")
    detail: str = Field(description="for a person: the level, where it came from, its budget")


class ModelInfo(WireModel):
    id: str | None
    provider: str | None
    key_variable: str | None
    key_set: bool | None = Field(description="null when the model needs no key")
    base_url: AbsentUnlessGiven[str | None] = None
    context_window: AbsentUnlessGiven[ContextWindowInfo | None] = Field(
        default=None, description="the window a run would use (given when the settings load)"
    )
    reasoning: AbsentUnlessGiven[ReasoningInfo | None] = Field(
        default=None, description="the reasoning a run would ask for (when the settings load)"
    )
    images: AbsentUnlessGiven[bool | None] = Field(
        default=None, description="the model table marks the model as taking images"
    )


class RipgrepInfo(WireModel):
    found: bool
    path: str | None
    version: str | None


class SandboxInfo(WireModel):
    on: bool
    detail: str
    bwrap: bool = Field(description="bubblewrap works here")


class Folders(WireModel):
    state: str
    config: str


class SettingsFileState(WireModel):
    path: str
    exists: bool
    trusted: AbsentUnlessGiven[bool | None] = Field(
        default=None, description="for the workspace file: approved with `agentls trust`"
    )
    error: Omittable[str] = None


class ManagedSettingsState(WireModel):
    path: str
    exists: bool
    in_force: bool = Field(description="a managed policy applies over every other setting")
    enforces: list[str] = Field(description="what it holds, in a few words each")
    overrides: list[str] = Field(description="the person's settings it overrides, and how")
    error: Omittable[str] = None


class SettingsFiles(WireModel):
    user: SettingsFileState
    workspace: Omittable[SettingsFileState] = None
    managed: Omittable[ManagedSettingsState] = None


class TelemetryInfo(WireModel):
    enabled: bool
    endpoint: str | None = Field(description="the collector's base URL; null when off")
    protocol: str
    log_content: bool = Field(description="prompts and tool input and output, masked, sent")
    exporting: bool = Field(description="enabled, and the exporter can run here")


class InstructionFileInfo(WireModel):
    path: str = Field(description="workspace-relative, or the user's own file")
    bytes: int
    sha256: str
    cut: bool = Field(description="cut at instructions.maxBytes")


class InstructionsInfo(WireModel):
    enabled: bool
    files: list[InstructionFileInfo] = Field(description="what an ask at the root is given")
    left_out: list[str] = Field(description="files the size limit leaves out")
    memories: int = Field(description="memories an ask here is shown")


class PromptCommandInfo(WireModel):
    name: str = Field(description="without the slash; a subfolder's as `folder:name`")
    description: str
    argument_hint: str | None = Field(description="the file's argument-hint; null: none")
    input_hint: str = Field(description="what to type after the name (argumentHint or a default)")
    path: str = Field(description="workspace-relative, or the person's own file")
    scope: Literal["workspace", "user"]
    trusted: bool = Field(description="the person's own, or approved with `agentls trust`")
    allowed_tools: list[str] = Field(description="the file's allowed-tools, as written")
    rules: list[str] = Field(description="the allow rules an ask with it adds (trusted only)")
    notes: list[str] = Field(description="what of the file is not used, and why")
    shadows: list[str] = Field(description="files of the same name it hides")


class CommandsInfo(WireModel):
    commands: list[PromptCommandInfo] = Field(description="by name; `/name args` asks with one")
    problems: list[str] = Field(description="command files skipped, and why")


class ConfiguredHook(WireModel):
    event: str = Field(description="PreToolUse, PostToolUse, UserPromptSubmit, Stop, "
                       "SessionStart, SessionEnd, PreCompact or Notification")  # fmt: skip
    matcher: str = Field(description="empty: every target")
    command: str
    timeout: float = Field(description="seconds")
    sandbox: bool = Field(description="runs in the sandbox")
    source: Literal["user", "workspace", "editor", "managed"] = Field(
        description="the settings layer it comes from"
    )
    path: str | None = Field(description="its settings file; null for the editor's settings")
    runs: bool = Field(description="a session here runs it when its event matches")
    reason: str | None = Field(description="why it does not run; null when it does")


class HookProblem(WireModel):
    source: Literal["user", "workspace", "managed"]
    path: str
    entry: str = Field(description="where in the file: hooks.PreToolUse[0].hooks[1]")
    error: str


class HooksInfo(WireModel):
    disable_all_hooks: bool = Field(description="the person's and the workspace's hooks are off")
    allow_managed_hooks_only: bool = Field(description="only the managed settings' hooks run")
    configured: list[ConfiguredHook] = Field(description="by event; none is run by the doctor")
    problems: list[HookProblem] = Field(description="entries that do not load")


class LanguageServerInfo(WireModel):
    name: str = Field(description="as the languageServers setting names it")
    command: str
    file_patterns: list[str]
    found: bool = Field(description="the command is on PATH")
    path: str | None
    version: str | None
    would_run: bool = Field(description="agentls would start it when a file it serves needs it")
    reason: str | None = Field(description="why it would not run; null when it would")
    install: str | None = Field(description="how to install it, when it is missing")


class EditorIntegration(WireModel):
    editor: Literal["vscode", "neovim", "emacs"]
    path: str
    version: str | None


class DoctorReport(WireModel):
    version: str
    python: PythonInfo
    workspace: str | None
    model: ModelInfo
    ripgrep: RipgrepInfo
    sandbox: SandboxInfo
    folders: Folders
    settings: SettingsFiles
    telemetry: TelemetryInfo
    instructions: InstructionsInfo
    commands: CommandsInfo
    hooks: HooksInfo
    mcp_servers: list[str] = Field(description="names; none is started")
    language_servers: list[LanguageServerInfo]
    editors: list[EditorIntegration]
    blocking: list[str] = Field(description="what stops an ask")
    warnings: list[str]
    ok: bool = Field(description="nothing blocks an ask")
