"""The Workspace interface and its headless implementation."""
