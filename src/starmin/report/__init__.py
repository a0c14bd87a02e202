"""The report record of a release and its renderers."""
