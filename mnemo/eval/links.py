"""Related notes worth a link, measured as link prediction on a real vault.

The vault is copied with a seeded 20 % of its linked note pairs hidden (hidden_links.py: the link
text stays as plain words), ingested and consolidated through the path users run (`ingest_vault`,
`consolidate_for_eval`), and each note's related notes are read as write-back reads them
(`read_insights`). A hidden link is found when the other note is among the note's first `K`
related notes: recall@K is the share of hidden links found (each pair counts once from each end
that can be written, i.e. that is not a journal day), precision the share of all written related
links that are hidden links. The baseline, in the same run: each note's nearest notes by the mean
of its passages' embeddings, leaving out the note itself, journal days and notes it already links.
mnemo's related notes are scored at every evidence threshold of `THRESHOLDS`; the one write-back
uses (`MIN_EVIDENCE`) is the `mnemo` row.
"""

import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.errors import MnemoError
from mnemo.eval.hidden_links import HiddenLinks, hide_links, link_pairs
from mnemo.eval.notes import VaultKind, ingest_vault, steps_lines
from mnemo.eval.sleep_run import consolidate_for_eval, sleep_steps
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import Embedder
from mnemo.stores.graph import GraphStore
from mnemo.writeback.insights import NoteInsight, read_insights
from mnemo.writeback.note_vectors import NoteVectors
from mnemo.writeback.related import MIN_EVIDENCE
from ontology import Ontology

K = 5
THRESHOLDS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0)
Ranked = dict[str, list[tuple[str, float]]]  # note path -> (other note path, evidence), best first


def mnemo_ranking(insights: list[NoteInsight]) -> Ranked:
    """Each note's related notes with their evidence, as write-back reads them."""
    return {i.note.path: list(zip((r.path for r in i.related), i.related_evidence, strict=True)) for i in insights}


def embedding_ranking(meanings: NoteVectors, paths: dict[str, str], eligible: set[str],
                      linked: dict[str, set[str]], k: int) -> Ranked:
    """Each note's `k` nearest eligible notes by mean passage embedding (cosine), not already linked
    (`paths`: note id -> path; the other arguments are by path)."""
    notes = [i for i in meanings.ids if i in paths]
    unit = meanings.unit[[meanings.rows[i] for i in notes]]
    similar = unit @ unit.T
    ranked: Ranked = {}
    for row, note in enumerate(notes):
        skip = linked.get(paths[note], set()) | {paths[note]}
        order = np.argsort(-similar[row], kind="stable")
        ranked[paths[note]] = [(paths[notes[c]], float(similar[row, c])) for c in order
                               if paths[notes[c]] in eligible and paths[notes[c]] not in skip][:k]
    return ranked


def score(ranked: Ranked, partners: dict[str, set[str]], min_evidence: float = 0.0,
          k: int = K, notes: int = 0) -> dict[str, float]:
    """recall@k of hidden links (`partners`: each note that can take related links -> the notes its
    hidden links reached), precision of the links written on those notes, how many were written, and
    on how many notes (and which share of `notes`)."""
    written = {note: [o for o, e in others if e >= min_evidence][:k] for note, others in ranked.items()
               if note in partners}
    hidden = sum(len(others) for others in partners.values())
    found = sum(len(set(written.get(note, [])) & others) for note, others in partners.items())
    total = sum(len(links) for links in written.values())
    return {
        f"recall@{k}": round(found / hidden, 4) if hidden else 0.0,
        "precision": round(found / total, 4) if total else 0.0,
        "written": total,
        "notes written": (taking := sum(1 for links in written.values() if links)),
        "share of notes": round(taking / notes, 4) if notes else 0.0,
    }


def choose_threshold(sweep: list[dict[str, float]], baseline: dict[str, float]) -> float | None:
    """The threshold with the best recall whose precision is at least the baseline's (the higher on a tie)."""
    fair = [row for row in sweep if row["precision"] >= baseline["precision"] and row["written"]]
    if not fair:
        return None
    return max(fair, key=lambda row: (row[f"recall@{K}"], row["min_evidence"]))["min_evidence"]


def evaluate_links(
    vault: Path, kind: VaultKind, embedder: Embedder, ontology: Ontology, *, share: float = 0.2, seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Hide, ingest, consolidate and score mnemo's related notes against the embedding baseline."""
    if kind not in ("obsidian", "logseq"):
        raise MnemoError(f"unknown vault kind {kind!r}: use obsidian or logseq")
    if not Path(vault).is_dir():
        raise MnemoError(f"{vault}: not a folder")
    with tempfile.TemporaryDirectory(prefix="mnemo-links-") as tmp:
        hidden = hide_links(Path(vault), kind, Path(tmp) / "vault", share, seed)
        if progress:
            progress(f"{len(hidden.pairs)} of {hidden.linked_pairs} linked note pairs hidden")
        ingested = ingest_vault(hidden.vault, kind, Path(tmp), embedder, ontology, RecallSettings())
        slept = consolidate_for_eval(ingested.pipeline)
        meanings = NoteVectors.of(ingested.pipeline.vectors.document_means())
        report = score_vault(Path(vault).name, hidden, kind, ingested.pipeline.graph, meanings)
        return {**report, "steps": {"ingest": ingested.ingested.steps, "sleep": sleep_steps(slept)}}


def score_vault(name: str, hidden: HiddenLinks, kind: str, graph: GraphStore, meanings: NoteVectors) -> dict[str, Any]:
    """The report of a vault ingested and consolidated with `hidden`'s links hidden."""
    insights = read_insights(graph, max_related=3 * K, min_evidence=0.0, meanings=meanings)
    eligible = {i.note.path for i in insights if i.note.kind != "journal"}
    takers = {i.note.path for i in insights if i.note.kind != "journal" and i.takes_related}
    paths = {i.note.id: i.note.path for i in insights}
    baseline = embedding_ranking(meanings, paths, eligible, _linked(hidden, kind), K)
    partners = _partners(hidden, takers, eligible)
    report = _report(name, hidden, insights, baseline, partners, len(eligible))
    report["notes taking related links"] = len(takers)
    others = {
        "mnemo, same budget as the baseline (top 5, no threshold)": insights,
        "mnemo, graph evidence only": read_insights(graph, max_related=3 * K, min_evidence=0.0),
        "mnemo, titles not counted": read_insights(graph, max_related=3 * K, min_evidence=0.0, titles_named=False,
                                                   meanings=meanings),
    }
    for label, ranked in others.items():
        threshold = 0.0 if "same budget" in label else MIN_EVIDENCE
        report["systems"][label] = score(mnemo_ranking(ranked), partners, threshold, notes=len(eligible))
    return report


def _linked(hidden: HiddenLinks, kind: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for a, b in link_pairs(hidden.vault, kind):
        found[a].add(b)
        found[b].add(a)
    return found


def _partners(hidden: HiddenLinks, takers: set[str], eligible: set[str]) -> dict[str, set[str]]:
    """Each note that takes related links -> the notes its hidden links reached that could be written there."""
    reached = hidden.partners()
    return {note: reached.get(note, set()) & eligible for note in takers}


def _report(name: str, hidden: HiddenLinks, insights: list[NoteInsight], baseline: Ranked,
            partners: dict[str, set[str]], eligible: int) -> dict[str, Any]:
    ranking = mnemo_ranking(insights)
    base = score(baseline, partners, notes=eligible)
    sweep = [{"min_evidence": t, **score(ranking, partners, t, notes=eligible)} for t in THRESHOLDS]
    return {
        "vault": name, "notes": len(insights), "linked_pairs": hidden.linked_pairs,
        "hidden_pairs": len(hidden.pairs), "hidden_links": sum(len(o) for o in partners.values()),
        "k": K, "min_evidence": MIN_EVIDENCE, "best_min_evidence": choose_threshold(sweep, base),
        "systems": {"mnemo": score(ranking, partners, MIN_EVIDENCE, notes=eligible), "embedding baseline": base},
        "sweep": sweep,
    }


def format_links_table(report: dict[str, Any]) -> str:
    """The report as plain text: both systems, then mnemo at every evidence threshold."""
    recall = f"recall@{report['k']}"
    rows = [(name, row) for name, row in report["systems"].items()]
    rows[0] = (f"mnemo (>= {report['min_evidence']})", rows[0][1])
    rows += [(f"  evidence >= {row['min_evidence']}", row) for row in report["sweep"]]
    width = max(len(name) for name, _ in rows)
    lines = [
        f"Link prediction on {report['vault']}: {report['hidden_pairs']} of {report['linked_pairs']} linked pairs"
        f" hidden, {report['hidden_links']} hidden links to find, {report['notes']} notes",
        *steps_lines(report),
        f"{'system':<{width}} {recall:>9} {'precision':>9} {'written':>8} {'notes':>6}",
    ]
    for name, row in rows:
        lines.append(f"{name:<{width}} {row[recall]:>9.3f} {row['precision']:>9.3f} {row['written']:>8} "
                     f"{row['notes written']:>6}")
    lines.append(f"best threshold here (recall, precision >= baseline): {report['best_min_evidence']}")
    return "\n".join(lines)
