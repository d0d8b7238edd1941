"""Precision and recall of automatic merges on a labeled set of name pairs from real vaults.

    python benchmarks/dedup_eval.py            # score benchmarks/dedup_pairs.tsv
    python benchmarks/dedup_eval.py --build    # rebuild the labeled pairs from ../shared/corpora

Positive pairs are names their authors declared the same: a page and each of its aliases
(frontmatter `aliases:`, Logseq `alias::`) and a link target and its display text
(`[[target|display]]`, `[display]([[target]])`). Negative pairs are distinct pages whose
names look alike (they share a blocking key or a MinHash/LSH bucket), plus a seeded sample
of random page pairs. Only names are stored, never note text.

The evaluation is blind: each pair is scored from the two names alone (same type, no
aliases, no links, no vectors), so the structural evidence that produced the label cannot
produce the answer. In the pipeline, the evidence and shared neighbours add to these scores.
"""

import argparse
import csv
import random
import re
import sys
from pathlib import Path
from urllib.parse import unquote

import frontmatter
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mnemo.documents import normalize_name  # noqa: E402
from mnemo.sleep.dedup import EntityRecord, candidate_pairs, score_pair  # noqa: E402
from mnemo.sleep.settings import SleepConfig  # noqa: E402

PAIRS = Path(__file__).with_name("dedup_pairs.tsv")
CORPORA = ROOT.parent / "shared" / "corpora"
_OBSIDIAN_LINK = re.compile(r"\[\[([^\]|#^]+)(?:[#^][^\]|]*)?\|([^\]]+)\]\]")
_LOGSEQ_LINK = re.compile(r"\[([^\]]+)\]\(\[\[([^\]]+)\]\]\)")
_LOGSEQ_ALIAS = re.compile(r"^alias::\s*(.+)$", re.MULTILINE)
_LOGSEQ_TITLE = re.compile(r"^title::\s*(.+)$", re.MULTILINE)


def _obsidian(vault: Path) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    aliases: dict[str, list[str]] = {}
    displays = []
    for path in sorted(vault.rglob("*.md")):
        if "Templates" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            meta = frontmatter.loads(text).metadata
        except (yaml.YAMLError, ValueError):
            meta = {}
        found = meta.get("aliases") or []
        aliases[path.stem] = [str(a) for a in (found if isinstance(found, list) else [found])]
        displays += [(t.strip(), d.strip()) for t, d in _OBSIDIAN_LINK.findall(text)]
    return aliases, displays


def _logseq(graph: Path) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    aliases: dict[str, list[str]] = {}
    displays = []
    for path in sorted((graph / "pages").glob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        title = _LOGSEQ_TITLE.search(text)
        name = title.group(1).strip() if title else unquote(path.stem).replace("___", "/")
        found = _LOGSEQ_ALIAS.search(text)
        values = [v.strip().strip("[]").strip() for v in found.group(1).split(",")] if found else []
        aliases[name] = [v for v in values if v]
        displays += [(t.strip(), d.strip()) for d, t in _LOGSEQ_LINK.findall(text)]
    for path in sorted((graph / "journals").glob("*.md")):
        displays += [(t.strip(), d.strip()) for d, t in _LOGSEQ_LINK.findall(path.read_text(encoding="utf-8", errors="replace"))]
    return aliases, displays


def _name_like(text: str) -> bool:
    """Display texts that could be an entity's name (not link prose like 'continue with the lesson...')."""
    return len(text.split()) <= 4 and not re.search(r"[.!?>:]", text)


def build(seed: int = 13) -> list[tuple[str, str, str, int, str]]:
    """(corpus, name a, name b, label, how) rows."""
    rows: list[tuple[str, str, str, int, str]] = []
    rng = random.Random(seed)
    for corpus, (aliases, displays) in [("obsidian-kepano", _obsidian(CORPORA / "obsidian-kepano")),
                                        ("logseq-docs", _logseq(CORPORA / "logseq-docs"))]:
        pages = {p.lower(): p for p in aliases}
        same: set[frozenset[str]] = set()
        for page, names in aliases.items():
            for alias in names:
                if normalize_name(alias) != normalize_name(page):
                    rows.append((corpus, page, alias, 1, "alias"))
                    same.add(frozenset((page.lower(), alias.lower())))
        for target, display in sorted(set(displays)):
            page = pages.get(target.lower())
            key = frozenset((target.lower(), display.lower()))
            if page and _name_like(display) and normalize_name(display) != normalize_name(page) and key not in same:
                rows.append((corpus, page, display, 1, "display"))
                same.add(key)
        records = [EntityRecord(p, "concept", p) for p in sorted(aliases)]
        hard = sorted(candidate_pairs(records))
        for a, b in hard:
            if frozenset((a.lower(), b.lower())) not in same:
                rows.append((corpus, a, b, 0, "lookalike"))
        names = sorted(aliases)
        for _ in range(len(hard) // 2 + 20):
            a, b = rng.sample(names, 2)
            if frozenset((a.lower(), b.lower())) not in same:
                rows.append((corpus, a, b, 0, "random"))
    return sorted(set(rows))


def evaluate(rows: list[dict[str, str]], threshold: float) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = {}
    groups: dict[str, list[dict[str, str]]] = {"all": rows}
    for row in rows:
        groups.setdefault(row["corpus"], []).append(row)
    for group, members in groups.items():
        tp = fp = fn = 0
        for row in members:
            merged = score_pair(EntityRecord("a", "concept", row["a"]), EntityRecord("b", "concept", row["b"])).score >= threshold
            label = row["label"] == "1"
            tp += merged and label
            fp += merged and not label
            fn += label and not merged
        positives = sum(r["label"] == "1" for r in members)
        table[group] = {"pairs": len(members), "positives": positives, "merged": tp + fp, "tp": tp, "fp": fp,
                        "precision": tp / max(1, tp + fp), "recall": tp / max(1, tp + fn)}
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="rebuild the labeled pairs from the corpora")
    parser.add_argument("--threshold", type=float, default=SleepConfig().merge_threshold)
    parser.add_argument("--errors", action="store_true", help="list the wrong decisions")
    args = parser.parse_args()
    if args.build:
        with PAIRS.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t")
            writer.writerow(["corpus", "a", "b", "label", "how"])
            writer.writerows(build())
    rows = list(csv.DictReader(PAIRS.open(encoding="utf-8"), delimiter="\t"))
    print(f"automatic merges at threshold {args.threshold} (blind: names and type only)")
    print(f"{'set':<16} {'pairs':>6} {'same':>5} {'merged':>6} {'fp':>4} {'precision':>9} {'recall':>7}")
    for group, m in evaluate(rows, args.threshold).items():
        print(f"{group:<16} {m['pairs']:>6} {m['positives']:>5} {m['merged']:>6} {m['fp']:>4} {m['precision']:>9.3f} {m['recall']:>7.3f}")
    if args.errors:
        for row in rows:
            scored = score_pair(EntityRecord("a", "concept", row["a"]), EntityRecord("b", "concept", row["b"]))
            if (scored.score >= args.threshold) != (row["label"] == "1"):
                print(row["label"], row["how"], repr(row["a"]), repr(row["b"]), scored.score, scored.reasons)
    return 0


if __name__ == "__main__":
    sys.exit(main())
