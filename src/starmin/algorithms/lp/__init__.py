"""The row-type LP core: Liang & Yuan's Thm 9 model with column generation (issue 8)."""
