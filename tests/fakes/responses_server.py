"""A local fake of the OpenAI Responses API (``POST /v1/responses``, streamed), on the
same HTTP core as the other fakes (``tests.fakes.http_fake``)::

    from tests.fakes.responses_server import FakeResponses, respond
    with FakeResponses([respond(tool_calls=[("call_1", "shell", {"cmd": "ls"})]),
                        respond("Done.")]) as fake:
        ...  # point the client at fake.base_url (which ends in /v1)

Standalone: ``python -m tests.fakes.responses_server --script S.json --port-file F``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tests.fakes.http_fake import FakeServer, Responder, load_replies, run_standalone
from tests.fakes.responses_replies import Reply, error_for_status, plan, respond, status

__all__ = ["FakeResponses", "Reply", "load_script", "respond", "status"]


def load_script(path: str | os.PathLike[str]) -> list[Reply]:
    return load_replies(path, Reply.from_dict)


class FakeResponses(FakeServer[Reply]):
    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        port: int = 0,
        record_path: str | None = None,
        responder: Responder[Reply] | None = None,
        static: dict[tuple[str, str], dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(
            replies,
            route="/v1/responses",
            plan=plan,
            error_body=error_for_status,
            port=port,
            record_path=record_path,
            responder=responder,
            static=static,
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def main(argv: list[str] | None = None) -> int:
    return run_standalone(FakeResponses, load_script, "Fake OpenAI Responses API", argv)


if __name__ == "__main__":
    raise SystemExit(main())
