"""Reading and writing tables and reports."""

from starmin.io.tables import read_table, sniff_separator, to_polars, write_json, write_table

__all__ = ["read_table", "sniff_separator", "to_polars", "write_json", "write_table"]
