"""Keeping a namespace healthy: backup, export, compaction, forget, checks and repair."""
