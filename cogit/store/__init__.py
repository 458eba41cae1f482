"""The versioned memory store: YAML state in a git repository, one write path."""
