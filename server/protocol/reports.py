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
    mcp_servers: list[str] = Field(description="names; none is started")
    language_servers: list[LanguageServerInfo]
    editors: list[EditorIntegration]
    blocking: list[str] = Field(description="what stops an ask")
    warnings: list[str]
    ok: bool = Field(description="nothing blocks an ask")
