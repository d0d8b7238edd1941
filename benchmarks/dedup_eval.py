"""Precision and recall of automatic merges on a labeled set of name pairs from real vaults.

    python benchmarks/dedup_eval.py            # score benchmarks/dedup_pairs.tsv
    python benchmarks/dedup_eval.py --build    # rebuild the labeled pairs from ../shared/corpora
    python benchmarks/dedup_eval.py --blind    # the old measure: names and type only

Positive pairs are names their authors declared the same: a page and each of its aliases
(frontmatter `aliases:`, Logseq `alias::`) and a link target and its display text
(`[[target|display]]`, `[display]([[target]])`). Negative pairs are distinct pages whose
names look alike (they share a blocking key or a MinHash/LSH bucket), plus a seeded sample
of random page pairs. Only names are stored, never note text.

Set-building rules (what makes a pair a dedup case at all):
- A positive is kept only when some page links to (or tags) the second name. The structural
  pipeline makes entities from pages and links, so an alias nobody links to never becomes an
  entity of its own and can never need merging; such pairs measured nothing the dedup does.
- A display text is a name of its target only when it reads like one: at most four words and
  no sentence punctuation (not 'continue with the lesson...').
- Negatives also pair pages with link targets that resolve to no page (the names of
  link-implied entities) when their names block together, unless they differ only in
  number or case (undecidable without the author's word).

Scoring feeds the dedup what the pipeline would give it, never the label (see
benchmarks/dedup_context.py): names, the other aliases, display texts of links, the type
(every page is a `concept` here), and neighbours from the vault's real link graph; the name
that defines a positive pair's label is split off the page with everything that came
through it. Entity vectors are not used (the scorer gives cosine little weight).
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

from benchmarks.dedup_context import CorpusContext  # noqa: E402
from mnemo.config import SleepConfig, SourceKind  # noqa: E402
from mnemo.documents import normalize_name  # noqa: E402
from mnemo.sleep.blocking import candidate_pairs  # noqa: E402
from mnemo.sleep.dedup import EntityRecord, PairScore, name_keys, score_pair  # noqa: E402

PAIRS = Path(__file__).with_name("dedup_pairs.tsv")
CORPORA = ROOT.parent / "shared" / "corpora"
KINDS: dict[str, SourceKind] = {"obsidian-kepano": "obsidian", "logseq-docs": "logseq"}
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
        context = CorpusContext(KINDS[corpus], CORPORA / corpus)
        pages = {p.lower(): p for p in aliases}
        same: set[frozenset[str]] = set()
        for page, names in aliases.items():
            for alias in names:
                if normalize_name(alias) != normalize_name(page) and context.referenced_as(alias):
                    rows.append((corpus, page, alias, 1, "alias"))
                    same.add(frozenset((page.lower(), alias.lower())))
        for target, display in sorted(set(displays)):
            named = pages.get(target.lower())
            key = frozenset((target.lower(), display.lower()))
            if named and _name_like(display) and normalize_name(display) != normalize_name(named) and key not in same \
                    and context.referenced_as(display):
                rows.append((corpus, named, display, 1, "display"))
                same.add(key)
        rows += _negatives(corpus, sorted(aliases), same, rng)
        rows += _link_negatives(corpus, context, sorted(aliases), same)
    return sorted(set(rows))


def _link_negatives(corpus: str, context: CorpusContext, names: list[str], same: set[frozenset[str]]) -> list[tuple[str, str, str, int, str]]:
    """A page and a link target that resolves to no page, whose names block together, not declared the same.
    Pairs that differ only in number or case ('Cloze' / 'clozes') are left out: nothing says whether the
    author meant the same thing, so they would be labels by guess."""
    pages = [p for p in names if context.pages[p.lower()].kind == "note"]
    records = [EntityRecord(p, "concept", p) for p in pages] + [EntityRecord("name:" + u, "concept", u) for u in context.unresolved_names()]
    rows = []
    for a, b in sorted(candidate_pairs(records)):
        if a.startswith("name:") == b.startswith("name:"):
            continue
        page, name = (b, a[5:]) if a.startswith("name:") else (a, b[5:])
        if frozenset((page.lower(), name.lower())) not in same and not name_keys(page) & name_keys(name):
            rows.append((corpus, page, name, 0, "lookalike link"))
    return rows


def _negatives(corpus: str, names: list[str], same: set[frozenset[str]], rng: random.Random) -> list[tuple[str, str, str, int, str]]:
    """Distinct pages whose names block together, and a sample of random page pairs."""
    rows = []
    hard = sorted(candidate_pairs([EntityRecord(p, "concept", p) for p in names]))
    for a, b in hard:
        if frozenset((a.lower(), b.lower())) not in same:
            rows.append((corpus, a, b, 0, "lookalike"))
    for _ in range(len(hard) // 2 + 20):
        a, b = rng.sample(names, 2)
        if frozenset((a.lower(), b.lower())) not in same:
            rows.append((corpus, a, b, 0, "random"))
    return rows


def scored_rows(rows: list[dict[str, str]], blind: bool) -> list[tuple[dict[str, str], PairScore]]:
    """Each labeled pair with the dedup's score: from names alone, or from what the pipeline knows."""
    contexts = {} if blind else {c: CorpusContext(k, CORPORA / c) for c, k in KINDS.items()}
    out = []
    for row in rows:
        if blind:
            a, b = EntityRecord("a", "concept", row["a"]), EntityRecord("b", "concept", row["b"])
        else:
            a, b = contexts[row["corpus"]].records(row["a"], row["b"])
        out.append((row, score_pair(a, b)))
    return out


def evaluate(scored: list[tuple[dict[str, str], PairScore]], merge_at: float, review_at: float) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = {}
    groups: dict[str, list[tuple[dict[str, str], PairScore]]] = {"all": scored}
    for item in scored:
        groups.setdefault(item[0]["corpus"], []).append(item)
    for group, members in groups.items():
        m: dict[str, float] = {f"{label} {band}": 0 for label in ("same", "diff") for band in ("merge", "review", "leave")}
        for row, score in members:
            label = "same" if row["label"] == "1" else "diff"
            band = "merge" if score.score >= merge_at else "review" if score.score >= review_at else "leave"
            m[f"{label} {band}"] += 1
        tp, fp = m["same merge"], m["diff merge"]
        positives = sum(r["label"] == "1" for r, _ in members)
        table[group] = {**m, "pairs": len(members), "positives": positives, "precision": tp / max(1, tp + fp),
                        "recall": tp / max(1, positives)}
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="rebuild the labeled pairs from the corpora")
    parser.add_argument("--blind", action="store_true", help="score from names and type only (no context)")
    parser.add_argument("--threshold", type=float, default=SleepConfig().merge_threshold)
    parser.add_argument("--errors", action="store_true", help="list the wrong decisions")
    args = parser.parse_args()
    if args.build:
        with PAIRS.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t")
            writer.writerow(["corpus", "a", "b", "label", "how"])
            writer.writerows(build())
    rows = list(csv.DictReader(PAIRS.open(encoding="utf-8"), delimiter="\t"))
    review_at = SleepConfig().review_threshold
    scored = scored_rows(rows, args.blind)
    print(f"automatic merges at {args.threshold}, review band from {review_at} "
          f"({'blind: names and type only' if args.blind else 'names, aliases, display texts, link neighbours'})")
    print(f"{'set':<16} {'pairs':>5} {'same':>5} {'same: merge/review/leave':>25} {'diff: merge/review':>19} {'precision':>9} {'recall':>6}")
    for group, m in evaluate(scored, args.threshold, review_at).items():
        same = f"{m['same merge']}/{m['same review']}/{m['same leave']}"
        diff = f"{m['diff merge']}/{m['diff review']}"
        print(f"{group:<16} {m['pairs']:>5} {m['positives']:>5} {same:>25} {diff:>19} {m['precision']:>9.3f} {m['recall']:>6.3f}")
    if args.errors:
        for row, score in scored:
            if (score.score >= args.threshold) != (row["label"] == "1"):
                print(row["label"], row["how"], repr(row["a"]), repr(row["b"]), score.score, score.reasons)
    return 0


if __name__ == "__main__":
    sys.exit(main())
