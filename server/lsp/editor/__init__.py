"""The connected editor: what it can do, how it is asked, its requests."""
