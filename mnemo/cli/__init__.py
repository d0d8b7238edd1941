"""The `mnemo` command line: one module per command group."""
