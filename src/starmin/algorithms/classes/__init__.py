"""Exact set partitioning over classes of row types (:mod:`.class_partition`)."""
