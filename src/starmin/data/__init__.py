"""Column roles and row types: the only view of a table that algorithms get.

This package imports nothing else of starmin.
"""

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema

__all__ = ["RowTypes", "Schema"]
