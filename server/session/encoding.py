"""Writing events as JSON without pydantic: one encoder per event class.

Pydantic stays the schema, the validator and the reader; it also writes what
these encoders refuse. Each encoder is generated from its class's fields: one
dict literal in wire order and with wire names, handed to orjson, which writes
long strings (a tool's output, twice a turn) several times faster. Anything
whose JSON could differ from pydantic's (a value orjson would write in its own
way: a set, a datetime, a dataclass or str subclass in `input` or `meta`, an
int past 64 bits, a lone surrogate) makes orjson raise and pydantic write the
event instead, so a line is byte-for-byte what pydantic would write.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import orjson
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo

from agentls.contracts.messages import Message
from agentls.contracts.usage import Usage
from agentls.session.records import message_wire

Encoder = Callable[[Any], dict[str, Any]]

# Values orjson would write differently from pydantic go to `refuse` instead.
LINE_OPTIONS = (
    orjson.OPT_APPEND_NEWLINE
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def refuse(value: object) -> None:
    """orjson's ``default``: what it does not write as pydantic would, pydantic writes."""
    raise TypeError(f"left to pydantic: {type(value).__name__}")


def _usage_wire(usage: Usage) -> dict[str, int]:
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cacheReadTokens": usage.cache_read_tokens,
        "cacheWriteTokens": usage.cache_write_tokens,
        "thinkingTokens": usage.thinking_tokens,
    }


_HELPERS: dict[str, object] = {"_message": message_wire, "_usage": _usage_wire}
_PLAIN = (str, int, bool, type(None))


def _is_plain(tp: Any) -> bool:
    """Types whose values orjson writes exactly as pydantic does."""
    if get_origin(tp) is Annotated:
        return _is_plain(get_args(tp)[0])
    if tp in _PLAIN or tp is Any:  # Any: only inside containers, checked by _refuse
        return True
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return all(isinstance(m.value, (str, int)) for m in tp)
    origin = get_origin(tp)
    if origin is Literal:
        return all(isinstance(a, _PLAIN) for a in get_args(tp))
    if origin in (Union, types.UnionType, list):
        return all(_is_plain(a) for a in get_args(tp))
    if origin is dict:
        key, value = get_args(tp)
        return key is str and _is_plain(value)
    return False


def _field_expr(name: str, tp: Any) -> str | None:
    base = get_args(tp)[0] if get_origin(tp) is Annotated else tp
    value = f"e.{name}"
    if base is Message:
        return f"_message({value})"
    if base is Usage:
        return f"_usage({value})"
    if base is float or (get_origin(base) in (Union, types.UnionType) and float in get_args(base)):
        if not all(a in (float, type(None)) for a in get_args(base) or (base,)):
            return None
        # pydantic writes a float field holding an int as a float (0 -> 0.0).
        return f"({value} if {value} is None or {value}.__class__ is float else float({value}))"
    if base is not Any and _is_plain(base):
        return value
    return None


def _wire_name(name: str, tp: Any) -> str:
    for meta in get_args(tp)[1:] if get_origin(tp) is Annotated else ():
        if isinstance(meta, FieldInfo) and (meta.serialization_alias or meta.alias):
            return str(meta.serialization_alias or meta.alias)
    return to_camel(name)  # the events' alias generator (records.WIRE)


def build_encoder(cls: type[Any]) -> Encoder | None:
    """An encoder of ``cls`` instances into their wire dict, or None when a
    field's type is not one the generated code writes exactly like pydantic."""
    hints = get_type_hints(cls, include_extras=True)
    items = []
    for f in dataclasses.fields(cls):
        expr = _field_expr(f.name, hints[f.name])
        if expr is None:
            return None
        items.append(f"{_wire_name(f.name, hints[f.name])!r}: {expr}")
    source = f"def encode(e):\n    return {{{', '.join(items)}}}\n"
    namespace = dict(_HELPERS)
    exec(compile(source, f"<encoder of {cls.__name__}>", "exec"), namespace)
    encoder: Encoder = namespace["encode"]  # type: ignore[assignment]
    return encoder
