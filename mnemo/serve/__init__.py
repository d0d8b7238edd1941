"""Serving memory to assistants: MCP, HTTP, API keys and chat hooks."""
