"""heuristic algorithms."""
