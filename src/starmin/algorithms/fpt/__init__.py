"""fpt algorithms."""
