"""What a run is told besides the prompt: the project's instruction files and the memory
kept across sessions, each item with where it came from."""
