"""Masking obvious secrets in tool output before the model or the log sees them.

Known credential formats (API keys and tokens with a recognisable prefix,
private key blocks, URLs with a password, key = value lines whose name says
secret and whose value looks random) are replaced by a marker that keeps the
kind and the first characters, so the model can still tell them apart.
"""

from __future__ import annotations

import re

_PREFIXED = re.compile(
    r"""(?x)
    \b(
        sk-ant-[A-Za-z0-9_\-]{20,}              # Anthropic
      | sk-(?:proj-)?[A-Za-z0-9_\-]{20,}        # OpenAI style
      | (?:AKIA|ASIA)[A-Z0-9]{16}               # AWS access key id
      | gh[pousr]_[A-Za-z0-9]{30,}              # GitHub tokens
      | github_pat_[A-Za-z0-9_]{30,}
      | glpat-[A-Za-z0-9_\-]{20,}               # GitLab
      | xox[abposr]-[A-Za-z0-9\-]{10,}          # Slack
      | AIza[0-9A-Za-z_\-]{35}                  # Google API key
      | npm_[A-Za-z0-9]{36}
      | pypi-[A-Za-z0-9_\-]{50,}
      | eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}   # JWT
    )"""
)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN ([A-Z ]*PRIVATE KEY)-----.*?(?:-----END \1-----|\Z)", re.DOTALL
)
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)([^\s@/]{3,})(@)")
_ASSIGNED = re.compile(
    r"""(?ix)
    (?=[stpak])  # fail fast where no keyword can start
    ((?:secret|token|passw(?:or)?d|api[_\-]?key|access[_\-]?key|private[_\-]?key)
     [A-Z0-9_.\-]*["']?\s*[:=]\s*["']?)
    ([A-Za-z0-9+/_\-=.]{16,})
    """
)
_ASSIGNED_HINTS = ("secret", "token", "passw", "key")
_PREFIX_HINTS = ("sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
                 "glpat-", "xox", "AIza", "npm_", "pypi-", "eyJ")  # fmt: skip


def _looks_random(value: str) -> bool:
    kinds = sum(
        (any(c.islower() for c in value), any(c.isupper() for c in value),
         any(c.isdigit() for c in value))
    )  # fmt: skip
    return kinds >= 2 and len(set(value)) >= 8


def mask_secrets(text: str) -> tuple[str, int]:
    """The text with secrets masked, and how many were."""
    count = 0

    def prefixed(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"{match.group(1)[:6]}…[secret masked]"

    def private_key(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"-----[{match.group(1)} masked]-----"

    def url(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"{match.group(1)}[password masked]{match.group(3)}"

    def assigned(match: re.Match[str]) -> str:
        nonlocal count
        if not _looks_random(match.group(2)):
            return match.group(0)
        count += 1
        return f"{match.group(1)}[secret masked]"

    # Cheap literal checks first: most output holds none of these, and the
    # full patterns would otherwise cost hundreds of microseconds per result.
    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY.sub(private_key, text)
    if any(hint in text for hint in _PREFIX_HINTS):
        text = _PREFIXED.sub(prefixed, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(url, text)
    lowered = text.lower()
    if any(hint in lowered for hint in _ASSIGNED_HINTS):
        text = _ASSIGNED.sub(assigned, text)
    return text, count
