"""`mcpServers` settings, in the shape other MCP clients use.

    {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
     "docs":   {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer ${T}"}}}

`${VAR}` and `${VAR:-default}` in the command, args, env, cwd, url and headers
are read from agentls's environment when the server starts, so a settings
file need not hold the secret itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from agentls.workspace.redaction import mask_secrets

SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_ONLY_REFERENCES = re.compile(r"^(?:\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}|\s)*$")
# An option whose name says it takes a secret (`--token X`, `--api-key=X`): its value is
# hidden from the log, whatever it looks like.
_SECRET_OPTION = re.compile(
    r"(?i)(--?[a-z0-9_-]*(?:token|secret|passw|key|auth|credential)[a-z0-9_-]*)(=.*)?"
)
HIDDEN = "<hidden>"  # a value agentls never writes down


class McpServerConfig(BaseModel):
    """One server: `command` (stdio) or `url` (streamable HTTP), and its timeouts."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    # "http" and "streamable-http" are the same transport; inferred when absent.
    type: Literal["stdio", "http", "streamable-http"] | None = None
    command: str | None = Field(default=None, min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None  # relative to the workspace root, which is the default
    url: str | None = Field(default=None, min_length=1)
    headers: dict[str, str] = Field(default_factory=dict)
    disabled: bool = False
    # Spawn (or connect) and the initialize handshake; tools/list; one tools/call.
    start_timeout_seconds: float = Field(default=30.0, gt=0, le=600)
    list_timeout_seconds: float = Field(default=15.0, gt=0, le=600)
    call_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    # Permission rules match this argument's value instead of the arguments' JSON.
    subject_argument: str | None = None

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if self.disabled:
            return self
        stdio = self.command is not None
        http = self.url is not None
        if stdio == http:
            raise ValueError("give either command (a stdio server) or url (streamable HTTP)")
        if self.type == "stdio" and not stdio:
            raise ValueError('type "stdio" needs a command')
        if self.type in ("http", "streamable-http") and not http:
            raise ValueError(f'type "{self.type}" needs a url')
        if stdio and (self.url is not None or self.headers):
            raise ValueError("url and headers are for HTTP servers, not stdio ones")
        if http and (self.args or self.env or self.cwd):
            raise ValueError("args, env and cwd are for stdio servers, not HTTP ones")
        return self

    @property
    def transport(self) -> Literal["stdio", "http", "none"]:
        if self.command is not None:
            return "stdio"
        return "http" if self.url is not None else "none"  # "none": disabled, and no transport

    def target(self) -> str:
        """What is started or reached, for a person (no env, no headers, secrets masked)."""
        if self.command is not None:
            shown = " ".join([self.command, *_hide_secret_options(self.args)])
        else:
            shown = self.url or ""
        return mask_secrets(shown)[0]


def expand(value: str, environ: Mapping[str, str] | None = None) -> str:
    """`${VAR}` and `${VAR:-default}` from the environment; KeyError names a missing one."""
    env = os.environ if environ is None else environ

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        raise KeyError(name)

    return _REFERENCE.sub(replace, value)


def for_log(config: Mapping[str, Any]) -> dict[str, Any]:
    """A server's settings (wire form) for the session log: env and header values that are
    not `${VAR}` references are hidden, since they usually hold tokens, and so is the value
    of an argument option named for a secret. The caller masks the rest (the url's
    password, a token in any other argument) as it masks every logged setting."""
    shown = dict(config)
    for key in ("env", "headers"):
        values = shown.get(key)
        if isinstance(values, Mapping):
            shown[key] = {k: _unless_reference(v) for k, v in values.items()}
    args = shown.get("args")
    if isinstance(args, (list, tuple)) and all(isinstance(a, str) for a in args):
        shown["args"] = _hide_secret_options(args)
    return shown


def _unless_reference(value: object) -> object:
    return value if isinstance(value, str) and _ONLY_REFERENCES.match(value) else HIDDEN


def _hide_secret_options(args: Sequence[str]) -> list[str]:
    """``--token X`` and ``--token=X`` with X hidden (a `${VAR}` reference is kept)."""
    shown: list[str] = []
    after_option = False
    for arg in args:
        if after_option and not arg.startswith("-"):
            shown.append(str(_unless_reference(arg)))
            after_option = False
            continue
        option = _SECRET_OPTION.fullmatch(arg)
        after_option = option is not None and option.group(2) is None
        if option is not None and option.group(2) is not None:
            arg = f"{option.group(1)}={_unless_reference(option.group(2)[1:])}"
        shown.append(arg)
    return shown
