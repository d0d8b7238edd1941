"""mnemo: a lifelong, structured memory of one person's notes and chats (the pure core)."""

__version__ = "0.1.0"
