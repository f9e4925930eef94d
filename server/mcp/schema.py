"""Checking an external tool's input against the JSON schema its server gave.

The runtime validates every tool's input with the tool's pydantic model; for an
external tool that model is an `ExternalArguments` subclass whose only check is
the server's JSON schema (jsonschema), so the pipeline's "validate input" step
is the same step for every tool and names the fields that are wrong.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from jsonschema import exceptions as schema_errors  # type: ignore[import-untyped]
from jsonschema import validators
from pydantic import RootModel, model_validator
from pydantic_core import PydanticCustomError

MAX_PROBLEMS = 5
MAX_PROBLEM_CHARS = 200


class ExternalArguments(RootModel[dict[str, Any]]):
    """A call's arguments, kept exactly as the model gave them once the schema holds."""

    validator: ClassVar[Any] = None

    @model_validator(mode="before")
    @classmethod
    def _check(cls, data: Any) -> Any:
        if cls.validator is not None:
            problems = schema_problems(cls.validator, data)
            if problems:
                raise PydanticCustomError("json_schema", "{problems}", {"problems": problems})
        return data

    @property
    def arguments(self) -> dict[str, Any]:
        return self.root


def arguments_model(name: str, schema: dict[str, Any]) -> type[ExternalArguments]:
    """A model for one tool; ValueError when its schema is not a JSON schema."""
    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except schema_errors.SchemaError as exc:
        raise ValueError(f"its input schema is not valid JSON Schema: {exc.message}") from None
    model = type(f"{name}Arguments", (ExternalArguments,), {"validator": cls(schema)})
    return cast(type[ExternalArguments], model)


def schema_problems(validator: Any, data: Any) -> str:
    """The first few schema violations, each as `where: what`."""
    found = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    problems = []
    for error in found[:MAX_PROBLEMS]:
        message = str(error.message)
        if len(message) > MAX_PROBLEM_CHARS:
            message = message[:MAX_PROBLEM_CHARS] + "…"
        where = ".".join(str(p) for p in error.absolute_path)
        problems.append(f"{where}: {message}" if where else message)
    if len(found) > MAX_PROBLEMS:
        problems.append(f"and {len(found) - MAX_PROBLEMS} more")
    return "; ".join(problems)
