"""approx algorithms."""
