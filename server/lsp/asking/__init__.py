"""Asking the person: approvals and edit reviews.

- `ask_person.py`: `ask_person`: one path for approvals and reviews, by the editor's
  route: a prompt (showMessageRequest) and one fallback to code actions.
- `approvals.py`: `LspApprover`: Allow once, Always allow (only when there is a rule
  to add), Deny.
- `review.py`: an edit reviewed where the editor has no preview of its own: Apply,
  Show diff, Reject; the diff written under the state folder and opened.
"""
