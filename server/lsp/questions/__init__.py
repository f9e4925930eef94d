"""Questions that wait for the person as code actions, for editors without a usable prompt.

- `board.py`: `QuestionBoard`: the questions waiting in one editor, each shown as an
  Information diagnostic where it belongs, answered once (`agentls.answer`) or timed
  out.
- `actions.py`: their code actions, `agentls:` comment asks, and cancelling.
"""
