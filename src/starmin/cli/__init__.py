"""Command-line interface: argument parsing only; everything else is the public API."""
