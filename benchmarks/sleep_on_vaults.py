"""What sleep mode learns on real vaults: its automatic merges, review queue and communities.

    python benchmarks/sleep_on_vaults.py [--embedder minilm|hashing] [VAULT ...]

Ingests each vault of ../shared/corpora (through the ingest job, in a temporary folder), runs the
dedup step, and prints every automatic merge with its reasons, whether it joined two notes, and
the review queue's size against the number of notes; then runs all of sleep mode and prints each
community: its title, size, cohesion, whether it clears the floor, and some members.
"""

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mnemo.config import SleepConfig  # noqa: E402
from mnemo.eval.sleep_run import consolidate_for_eval  # noqa: E402
from mnemo.ingest.pipeline import graph_facts  # noqa: E402
from mnemo.sleep.resolve import read_review_queue, run_dedup  # noqa: E402
from mnemo.sleep.store import SleepFiles  # noqa: E402
from mnemo.sleep.view import COHESION_FLOOR  # noqa: E402
from tests.support import make_workspace  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"
VAULTS = {"obsidian-kepano": "obsidian", "obsidian-ideaverse": "obsidian", "logseq-docs": "logseq",
          "obsidian-antoniolandin-es": "obsidian"}


def measure(name: str, embedder: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = make_workspace(Path(tmp), {"v": [{"kind": VAULTS[name], "path": str(CORPORA / name)}]}, embedder)
        workspace.ingest("v")
        files = workspace.files("v")
        facts = graph_facts(files)
        entities = facts.nodes["Entity"]
        notes = sum(1 for e in entities.values() if e["origin"] == "note")
        result = run_dedup(files, SleepConfig(), workspace.vectors("v"))
        merges = [{"canonical": entities[m.canonical]["name"], "merged": entities[m.merged]["name"],
                   "two_notes": entities[m.canonical]["origin"] == entities[m.merged]["origin"] == "note",
                   "score": m.score, "reasons": list(m.reasons)} for m in result.merges]
        queue = [q for q in read_review_queue(SleepFiles(files.root)) if q["status"] == "pending"]
        communities = _communities(workspace, files)
        return {"communities": communities, "vault": name, "notes": notes, "entities": len(entities), "merges": merges,
                "merges_of_two_notes": sum(m["two_notes"] for m in merges), "review_queue": len(queue),
                "review_share_of_notes": round(len(queue) / max(1, notes), 4),
                "review_top": [{"a": entities[q["a"]]["name"], "b": entities[q["b"]]["name"], "score": q["score"],
                                "reason": q.get("reason", ", ".join(q["reasons"]))} for q in queue[:10]]}


def _communities(workspace: Any, files: Any) -> list[dict[str, Any]]:
    report = consolidate_for_eval(workspace.pipeline("v"))
    assert report.communities is not None
    rows = workspace.graph("v").query(
        "MATCH (c:Community) WHERE c.level = 0 RETURN c.title AS title, c.members AS members, c.cohesion AS cohesion")
    entities = workspace.graph("v").query("MATCH (e:Entity) RETURN e.id AS id, e.name AS name")
    names = {r["id"]: r["name"] for r in entities}
    found = []
    for row in sorted(rows, key=lambda r: -len(json.loads(r["members"]))):
        members = sorted(names.get(m, m) for m in json.loads(row["members"]))
        found.append({"title": row["title"], "size": len(members), "cohesion": row["cohesion"],
                      "written": row["cohesion"] >= COHESION_FLOOR, "members": members[:12]})
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vaults", nargs="*", default=list(VAULTS))
    parser.add_argument("--embedder", default="minilm")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    for name in args.vaults:
        print(json.dumps(measure(name, args.embedder), ensure_ascii=False, indent=1), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
