"""The base of every protocol model: camelCase on the wire, one way to write it out.

Results and events name every field on the wire (null where there is no value),
except the few marked `Omittable` (left out when None) or `AbsentUnlessGiven`
(left out unless given, as in a report that says `baseUrl` only for providers
that have one).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, TypeVar, Union

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

T = TypeVar("T")


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


ABSENT_WHEN_NONE = _Marker("ABSENT_WHEN_NONE")
ABSENT_UNLESS_GIVEN = _Marker("ABSENT_UNLESS_GIVEN")

# Absent rather than null when there is nothing to say: the schema has no null for it.
Omittable = Annotated[Union[T, SkipJsonSchema[None]], ABSENT_WHEN_NONE]  # noqa: UP007
# Absent unless the producer gave it (then as given, null included).
AbsentUnlessGiven = Annotated[T, ABSENT_UNLESS_GIVEN]


def _marked(cls: type[BaseModel], *markers: _Marker) -> frozenset[str]:
    return frozenset(
        name
        for name, field in cls.model_fields.items()
        if any(marker in field.metadata for marker in markers)
    )


def _as_written(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """What the server writes: every key required but those that may be absent, and no
    defaults (a default says what a reader may leave out, not what a writer sends)."""
    absent = {
        cls.model_fields[name].alias or name
        for name in _marked(cls, ABSENT_WHEN_NONE, ABSENT_UNLESS_GIVEN)
    }
    required = schema.get("required")
    if isinstance(required, list) and absent:
        schema["required"] = [name for name in required if name not in absent]
    for field in schema.get("properties", {}).values():
        field.pop("default", None)


class WireModel(BaseModel):
    """What the server sends. Build it with field names; `wire()` gives the JSON object."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        json_schema_serialization_defaults_required=True,
        json_schema_extra=_as_written,
    )
    _absent_when_none: ClassVar[frozenset[str]] = frozenset()
    _absent_unless_given: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._absent_when_none = _marked(cls, ABSENT_WHEN_NONE)
        cls._absent_unless_given = _marked(cls, ABSENT_UNLESS_GIVEN)

    def model_post_init(self, context: Any, /) -> None:
        # Which keys go on the wire is kept as the "fields set", so `exclude_unset`
        # writes nested models right too: defaults count as given.
        given = self.__pydantic_fields_set__
        for name in type(self).model_fields:
            if name in self._absent_when_none:
                if getattr(self, name) is None:
                    given.discard(name)
                else:
                    given.add(name)
            elif name not in self._absent_unless_given:
                given.add(name)

    def wire(self) -> dict[str, Any]:
        """The JSON-ready object as it goes to the client."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Params(BaseModel):
    """What a client sends: unknown keys are refused, so a misspelt one is noticed."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")
