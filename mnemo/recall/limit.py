"""How many items recall returns when not asked: one default for the Python client, the `mnemo`
command, the HTTP API and the MCP server."""

DEFAULT_LIMIT = 10
