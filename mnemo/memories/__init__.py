"""Live memories: what an assistant asks mnemo to remember, save by title, read and forget.

- `live`: `LiveMemories`, one namespace's memories as the surfaces (client, CLI, HTTP, MCP) use them:
  remember, read with their status, list by scope (a room), forget by id, title, scope or expiry.
- `remember`: a memory checked (text, entities, scope, expiry) and written, then made recallable.
- `titled`: memories saved by title: save, read, exists, append, under a per-namespace lock.
- `purge`: forgetting memories by expiry, title or scope, through the journaled forget.

This package builds on the stages below it, which read memories but never write them: the file
format (`mnemo.sources.memory_files`, which the scan reads as the `memories` source), the rows a
memory becomes (`mnemo.ingest.memory_rows`), which passages recall may show
(`mnemo.recall.passage_visibility`, `mnemo.recall.visibility`), and the forget every store goes
through (`mnemo.maintenance.forget`).
"""
