"""Ingest: sources to documents, chunks, facts and stores, one namespace at a time."""
