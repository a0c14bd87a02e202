"""exact algorithms."""
