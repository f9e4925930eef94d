"""Errors that stop work before it starts."""


class ConfigError(Exception):
    """Bad settings, a bad flag or a missing credential: exit status 2, nothing done."""
