"""Asking the person: approvals and edit reviews."""
