"""Asking the person: approvals, proposed plans and edit reviews.

- `ask_person.py`: `ask_person`: one path for approvals and reviews, by the editor's
  route: a prompt (showMessageRequest) and one fallback to code actions.
- `approvals.py`: `LspApprover`: Allow once, Always allow (only when there is a rule
  to add), Deny; a proposed plan: Switch to default, Switch to accept-edits, Keep
  planning (no answer keeps planning: no one switched).
- `review.py`: an edit reviewed where the editor has no preview of its own: Apply,
  Show diff, Reject; the diff written under the state folder and opened.
"""
