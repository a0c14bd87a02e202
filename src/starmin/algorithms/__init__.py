"""Algorithms: each maps RowTypes + model to a ReleasePlan and states its guarantee."""
