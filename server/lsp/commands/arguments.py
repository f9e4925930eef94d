"""A command's arguments as its model of `agentls.protocol.commands`, or InvalidParams."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcInvalidParams

if TYPE_CHECKING:
    from pydantic import BaseModel

P = TypeVar("P", bound="BaseModel")


def no_argument(args: tuple[Any, ...]) -> bool:
    """Editors that cannot pass an argument send none, `{}`, or (Emacs) `null`."""
    return not args or args in (({},), (None,))


def parse(model: type[P], args: tuple[Any, ...], command: str) -> P:
    """The command's one object argument as its model, or InvalidParams naming the field.

    Emacs reads a JSON `{}` as nil and writes nil back as `null`: a command it
    was handed with `[{}]` (a code action's) comes back as `[null]`, read as `{}`.
    """
    from pydantic import ValidationError

    argument = {} if args == (None,) else args[0] if len(args) == 1 else None
    if not isinstance(argument, dict):
        raise JsonRpcInvalidParams(message=f"{command} takes one object argument")
    try:
        return model.model_validate(argument)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'argument'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise JsonRpcInvalidParams(message=f"{command}: {problems}") from None
