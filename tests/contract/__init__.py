"""Contract tests that hold every registered algorithm to its stated guarantee."""
