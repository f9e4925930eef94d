"""The shapes session events carry inside them: messages, usage, a run's result.

Messages and usage are written several times a turn, so events carry the core
types themselves (`contracts.messages.Message`, `contracts.usage.Usage`): a
writer hands over what it already has, and only the serializer turns it into
the wire form (a message's as described, and when reading validated, by the
record models here; usage's by pydantic, from the dataclass itself). Every
key is camelCase; a content block's `type` keeps the values the model APIs use.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PlainSerializer,
    PlainValidator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from agentls.contracts.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentls.contracts.outcomes import RunResult
from agentls.contracts.plans import Plan, PlanStep, StepStatus

WIRE = ConfigDict(
    alias_generator=to_camel,
    validate_by_name=True,
    validate_by_alias=True,
    serialize_by_alias=True,
    extra="ignore",  # a reader keeps what it knows of a line written by a newer agentls
    json_schema_serialization_defaults_required=True,  # every key is written, null or not
)


class Record(BaseModel):
    model_config = WIRE


class TextRecord(Record):
    type: Literal["text"] = "text"
    text: str


class ThinkingRecord(Record):
    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str = ""


class RedactedThinkingRecord(Record):
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ImageRecord(Record):
    """An image of a prompt, by hash: its bytes are in the session's folder
    (`sessions/<id>/images/<sha256>`), never in the log."""

    type: Literal["image"] = "image"
    media_type: str = Field(description="image/png, image/jpeg, image/gif or image/webp")
    sha256: str = Field(description="of the image's bytes, the name of its file")
    size: int = Field(description="bytes")
    width: int
    height: int


class ToolUseRecord(Record):
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]


class ToolResultRecord(Record):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


BlockRecord = Annotated[
    Union[  # noqa: UP007
        TextRecord,
        ThinkingRecord,
        RedactedThinkingRecord,
        ImageRecord,
        ToolUseRecord,
        ToolResultRecord,
    ],
    Field(discriminator="type"),
]


class MessageRecord(Record):
    """A message of the history, as the log writes it."""

    role: Literal["user", "assistant"]
    content: list[BlockRecord]

    def to_message(self) -> Message:
        return Message(self.role, tuple(_block(b) for b in self.content))


def _block(record: BaseModel) -> ContentBlock:
    if isinstance(record, TextRecord):
        return TextBlock(record.text)
    if isinstance(record, ThinkingRecord):
        return ThinkingBlock(record.thinking, record.signature)
    if isinstance(record, RedactedThinkingRecord):
        return ThinkingBlock("", "", record.data)
    if isinstance(record, ToolUseRecord):
        return ToolUseBlock(record.id, record.name, record.input)
    if isinstance(record, ImageRecord):
        return ImageBlock(
            record.media_type, record.sha256, record.size, record.width, record.height
        )
    assert isinstance(record, ToolResultRecord)
    return ToolResultBlock(record.tool_use_id, record.content, record.is_error)


def _block_wire(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        return {
            "type": "tool_result",
            "toolUseId": block.tool_use_id,
            "content": block.content,
            "isError": block.is_error,
        }
    if isinstance(block, ImageBlock):  # by hash: the bytes are in the session's folder
        return {
            "type": "image",
            "mediaType": block.media_type,
            "sha256": block.sha256,
            "size": block.size,
            "width": block.width,
            "height": block.height,
        }
    if block.redacted_data is not None:
        return {"type": "redacted_thinking", "data": block.redacted_data}
    return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}


def message_wire(message: Message) -> dict[str, Any]:
    return {"role": message.role, "content": [_block_wire(b) for b in message.content]}


def _as_message(value: Any) -> Message:
    if isinstance(value, Message):
        return value  # a writer's own message: typed already, not validated again
    return MessageRecord.model_validate(value).to_message()


class _DescribedBy:
    """The JSON schema of a carried core type: that of the record it is written as."""

    def __init__(self, record: type[BaseModel]) -> None:
        self.record = record

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(self.record.__pydantic_core_schema__)


# A message as an event field: no conversion when written, validated when read.
WireMessage = Annotated[
    Message,
    PlainValidator(_as_message),
    PlainSerializer(message_wire, return_type=Any),
    _DescribedBy(MessageRecord),
]


class ResultUsage(Record):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = Field(default=None, description="USD; null when unknown")


class BudgetRecord(Record):
    limit: str
    max: float
    used: float
    over_by: float


class RunResultRecord(Record):
    """How a run ended (`RunResult`)."""

    terminal_reason: str
    text: str = ""
    turns: int = 0
    usage: ResultUsage = Field(default_factory=ResultUsage)
    detail: str = ""
    budget: BudgetRecord | None = None

    @classmethod
    def of(cls, result: RunResult) -> RunResultRecord:
        usage, cost, budget = result.usage, result.cost_usd, result.budget
        return cls(
            terminal_reason=result.reason.value,
            text=result.text,
            turns=result.turns,
            usage=ResultUsage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                cost_usd=None if cost is None else round(cost, 6),
            ),
            detail=result.detail,
            budget=None
            if budget is None
            else BudgetRecord(
                limit=budget.limit_name,
                max=budget.limit,
                used=budget.used,
                over_by=round(budget.over_by, 6),
            ),
        )


class ForkOrigin(Record):
    """Where a forked session came from: its history is that session's, up to (before) an
    ask or whole."""

    session_id: str
    ask: int | None = Field(
        description="the history ends before this ask (1-based); null: the whole session"
    )
    asks: int = Field(description="how many of that session's asks the history holds")


class ChangedFile(Record):
    path: str
    status: str = Field(description='"A" added, "M" modified, "D" deleted')


class InstructionFileRecord(Record):
    path: str = Field(description="as the model saw it: workspace-relative, or the user's own")
    sha256: str = Field(description="of the file's bytes when the run read it")
    bytes: int
    cut: bool = Field(default=False, description="cut at instructions.maxBytes")


class PlanStepRecord(Record):
    step: str
    status: Literal["pending", "in_progress", "completed"]


def plan_records(plan: Plan) -> list[PlanStepRecord]:
    return [PlanStepRecord(step=s.step, status=s.status.value) for s in plan.steps]


def plan_of(records: list[PlanStepRecord], explanation: str) -> Plan:
    return Plan(tuple(PlanStep(r.step, StepStatus(r.status)) for r in records), explanation)


class ProblemRecord(Record):
    path: str
    line: int
    message: str
    source: str
    severity: str
    code: str = ""
