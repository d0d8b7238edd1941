"""Sleep mode: nightly consolidation over a namespace's stores.

Dedup and alias resolution, communities, progressive summaries, salience and decay, and
the self profile. Every result is kept as files under `<namespace>/sleep/` and reaches the
graph as an overlay on the extraction facts (see `view.py` and `merges.py`), so a re-ingest
keeps it.
"""
