"""Reading tables (:mod:`.tables`) and writing a release with its report (:mod:`.output`)."""

from starmin.data.csv_file import sniff_separator
from starmin.io.output import check_output, write_table_pair
from starmin.io.tables import read_table, to_polars

__all__ = ["check_output", "read_table", "sniff_separator", "to_polars", "write_table_pair"]
