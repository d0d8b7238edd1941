"""Ingest a vault on one graph engine, in a process of its own (Kùzu and LadybugDB cannot share one),
and print what it holds as JSON: the canonical dump and the recall answers to some questions.

    python -m tests.support.engine_run ROOT VAULT ENGINE QUESTION...
"""

import json
import os
import sys
from pathlib import Path

from tests.support import GRAPH_ENGINE_ENV


def run(root: Path, vault: Path, engine: str, questions: list[str]) -> dict[str, object]:
    os.environ[GRAPH_ENGINE_ENV] = engine  # the workspace's mnemo.yaml names it (`graph.engine`)
    from mnemo.maintenance.dump import canonical_dump
    from ontology import load_ontology
    from tests.support import make_workspace, steady_client

    root.mkdir(parents=True, exist_ok=True)
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    assert workspace.config.graph.engine == engine
    workspace.ingest()
    client = steady_client(workspace)
    answers = {q: [(i.id, round(i.score, 6)) for i in client.recall(q, limit=10).items] for q in questions}
    dump = canonical_dump(workspace.config.data_dir, "test", load_ontology(), engine)
    return {"engine": engine, "built_with": _built_with(workspace.files().graph_path), "dump": dump, "answers": answers}


def _built_with(path: Path) -> str | None:
    from mnemo.stores.graph_engine import built_with

    return built_with(path)


if __name__ == "__main__":
    root, vault, engine, *questions = sys.argv[1:]
    print(json.dumps(run(Path(root), Path(vault), engine, questions), default=str))
