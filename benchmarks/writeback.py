"""Write-back on copies of real vaults (and on a synthetic one): what it wrote, what else changed, how fast.

    .venv/bin/python benchmarks/writeback.py                   # the corpora in ../shared/corpora
    .venv/bin/python benchmarks/writeback.py --synthetic 2000  # plus a generated vault of 2,000 notes
    .venv/bin/python benchmarks/writeback.py --results benchmarks/results/writeback_real-DATE.json

For each vault: copy it to a temp folder, ingest it (hashing embedder), run sleep mode (so
communities, week and month summaries exist), run a full write-back and a second one, then
audit every note with a method independent of the patcher (regexes that cut the `mnemo-*`
lines out again): the bytes changed outside them, files added outside mnemo's own folder,
every wikilink written (in notes and generated pages) that does not resolve to an existing
note, the day links written (links to journal pages), the share of `mnemo-related` links the
note did not already link, and whether undoing the first run gives back every byte (the
generated pages and their folder gone).
"""

import argparse
import datetime as dt
import difflib
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnemo.config import SleepConfig  # noqa: E402
from mnemo.sleep.consolidate import consolidate  # noqa: E402
from mnemo.writeback.journal_days import format_day, logseq_title_format  # noqa: E402
from mnemo.writeback.run import journal_for, source_roots, undo_run, writeback_namespace  # noqa: E402
from ontology import load_ontology  # noqa: E402
from tests.support import CORPORA, make_workspace  # noqa: E402

DAY = "2026-11-22"
SLEEP_AT = dt.datetime(2026, 11, 22, 3, tzinfo=dt.UTC)
FOLDER = "Mnemo"
_RELATED = re.compile(r"(?m)^mnemo-related::(.*)$|^mnemo-related:\n((?:[ \t]+- [^\n]*\n)*)")
_YAML_BLOCK = re.compile(r"(?m)^mnemo(?:-[\w-]+)?:[^\n]*\n(?:[ \t][^\n]*\n)*")
_LOGSEQ_LINE = re.compile(r"(?m)^mnemo-[\w-]+::[^\n]*(?:\n|$)")
_LINK = re.compile(r"\[\[([^\[\]]+)\]\]")


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def without_mnemo(text: str) -> tuple[set[str], str]:
    """(the texts the note may have been before the write-back, the mnemo lines cut out)."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    cut = "".join(_YAML_BLOCK.findall(text)) + "".join(_LOGSEQ_LINE.findall(text))
    rest = _LOGSEQ_LINE.sub("", _YAML_BLOCK.sub("", text))
    body = rest[len(bom):]
    candidates = {rest, rest.removesuffix("\n")}
    for empty in ("---\n---\n", "---\r\n---\r\n", "\n", "\r\n"):
        if body.startswith(empty):
            candidates.add(bom + body[len(empty):])
    return candidates, cut


def outside_bytes(before: bytes, after: bytes) -> int:
    """Bytes that differ between the two versions once the mnemo lines are cut out of the new one."""
    old = before.decode("utf-8")
    candidates, _ = without_mnemo(after.decode("utf-8"))
    if old in candidates:
        return 0
    matcher = difflib.SequenceMatcher(None, old, min(candidates, key=len), autojunk=False)
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal")


def logseq_names(root: Path) -> set[str]:
    """Page names as Logseq gives them: title property, journal date, or the decoded file name."""
    names = set()
    for path in root.rglob("*.md"):
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
        title = re.match(r"(?:[^\s:]+::[^\n]*\n)*?title:: *([^\n]+)", text)
        front = re.match(r"---\n(.*?)\n---", text, re.S)
        if title:
            names.add(title.group(1).strip().lower())
            continue
        if front and isinstance(data := yaml.safe_load(front.group(1)), dict) and isinstance(data.get("title"), str):
            names.add(data["title"].strip().lower())
            continue
        day = re.fullmatch(r"(\d{4})_(\d\d)_(\d\d)", path.stem)
        if day:
            y, m, d = map(int, day.groups())
            names.add(format_day(dt.date(y, m, d), logseq_title_format(root)).lower())
        else:
            names.add(unquote(path.stem.replace("___", "/")).lower())
    return names


def unresolved(root: Path, after: dict[str, bytes], kind: str) -> list[str]:
    """Links written into mnemo blocks that name no existing note."""
    stems: dict[str, int] = {}
    for path in after:
        stem = Path(path).stem.lower()
        stems[stem] = stems.get(stem, 0) + 1
    names = logseq_names(root) if kind == "logseq" else set()
    missing = []
    for path, data in after.items():
        for target in _LINK.findall(without_mnemo(data.decode("utf-8"))[1]):
            ok = target.lower() in names if kind == "logseq" else (stems.get(target.lower()) == 1 or f"{target}.md" in after)
            if not ok:
                missing.append(f"{path} -> [[{target}]]")
    return missing


def day_links(root: Path, after: dict[str, bytes], kind: str) -> list[str]:
    """Links written into mnemo lines whose target is a day: a journal page's name (Logseq) or a
    date-shaped name (either format), so that a day link in the wrong format is counted too."""
    shaped = re.compile(r"\d{4}[-/_]\d{2}[-/_]\d{2}|[A-Z][a-z]{2} \d{1,2}(?:st|nd|rd|th), \d{4}")
    journals = {p.stem for p in (root / "journals").glob("*.md")} if kind == "logseq" else set()
    titles = set()
    for stem in journals:
        day = re.fullmatch(r"(\d{4})_(\d\d)_(\d\d)", stem)
        if day:
            titles.add(format_day(dt.date(*map(int, day.groups())), logseq_title_format(root)))
    found = []
    for data in after.values():
        found += [t for t in _LINK.findall(without_mnemo(data.decode("utf-8"))[1]) if t in titles or shaped.search(t)]
    return found


def owned(path: str) -> bool:
    """A file in mnemo's own place for generated pages (Obsidian: its folder; Logseq: namespaced pages)."""
    return path.startswith(FOLDER + "/") or path.startswith(f"pages/{FOLDER}___")


def related_new(after: dict[str, bytes]) -> tuple[int, int]:
    """(`mnemo-related` links written, of those the ones the note's own text does not already link)."""
    written = new = 0
    for path, data in after.items():
        if owned(path):
            continue
        text = data.decode("utf-8")
        rest, _ = without_mnemo(text)
        related = [link for m in _RELATED.finditer(text) for link in _LINK.findall(m.group(1) or m.group(2) or "")]
        own = {t.split("|")[0].split("#")[0].strip().lower() for t in _LINK.findall(min(rest, key=len))}
        written += len(related)
        new += sum(t.lower() not in own and t.lower().rsplit("/", 1)[-1] not in own for t in related)
    return written, new


def page_links(after: dict[str, bytes]) -> dict[str, bytes]:
    """The generated pages, their whole text standing as `mnemo` lines for the link audits."""
    return {p: b"mnemo-page:: " + d.replace(b"\n", b" ") + b"\n" for p, d in after.items() if owned(p)}


def measure(source: Path, kind: str, work: Path) -> dict[str, object]:
    """Copy, ingest, sleep, write back twice, audit; the figures for one vault."""
    vault = work / source.name
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns("*.org"))  # never written; spares the log
    for path in [vault, *vault.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    workspace = make_workspace(work, {"test": [{"kind": kind, "path": str(vault), "name": "vault"}]})
    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), SLEEP_AT)
    config = workspace.config
    before = snapshot(vault)
    started, cpu = time.perf_counter(), time.process_time()
    plan, report = writeback_namespace(config, "test", load_ontology(), today=DAY)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    after = snapshot(vault)
    again, second = writeback_namespace(config, "test", load_ontology(), today="2026-12-24")
    notes_after = {p: d for p, d in after.items() if p in before}
    audited = {**notes_after, **page_links(after)}
    days = day_links(vault, audited, kind)
    related, new = related_new(after)
    missing = unresolved(vault, audited, kind)
    undo = undo_run(journal_for(config, "test"), report.run, source_roots(config, "test"))
    undo_exact = snapshot(vault) == before and not undo.skipped and not (vault / FOLDER).exists()
    notes = len(report.written) + plan.unchanged + plan.opted_out + plan.excluded + len(report.skipped)
    added = sorted(set(after) - set(before))
    return {
        "vault": source.name, "kind": kind, "notes": notes, "written": len(report.written),
        "skipped": len(report.skipped), "changed_files": sum(before[p] != after[p] for p in before),
        "outside_bytes": sum(outside_bytes(before[p], after[p]) for p in before),
        "pages": len(report.pages), "pages_added": len(added),
        "added_outside_folder": [p for p in added if not owned(p)],
        "community_pages": sum("/Communities/" in p or "___Communities___" in p for p in added),
        "unresolved": missing, "day_links": len(days),
        "day_links_unresolved": len(set(days) & {m.split(" -> ")[1][2:-2] for m in missing}),
        "undo_exact": undo_exact, "related_links": related, "related_new": new,
        "related_new_share": round(new / related, 3) if related else None, "seconds": seconds, "cpu_seconds": cpu,
        "s_per_1000": seconds / max(notes, 1) * 1000,
        "second_run_written": len(second.written) + len(second.pages),
        "skips": [(s.path, s.reason) for s in report.skipped],
    }


def synthetic_vault(root: Path, count: int) -> Path:
    """A vault of `count` notes: people, projects and daily notes that link to each other."""
    vault = root / f"synthetic-{count}"
    for i in range(count):
        folder = ("People", "Projects", "Daily")[i % 3]
        (vault / folder).mkdir(parents=True, exist_ok=True)
        kind = {"People": "person", "Projects": "project", "Daily": "note"}[folder]
        links = " ".join(f"[[Note {(i * 31 + k) % count}]]" for k in range(1, 4))
        text = f"---\ntype: {kind}\ntags: [bench]\n---\n# Note {i}\n\nWorked with {links} today.\n"
        (vault / folder / f"Note {i}.md").write_text(text, encoding="utf-8")
    return vault


def _row(f: dict[str, Any]) -> str:
    share = f"{f['related_new_share']:.1%}" if f["related_new_share"] is not None else "-"
    return (
        f"| {f['vault']} | {f['kind']} | {f['notes']} | {f['written']} | {f['skipped']} | {f['outside_bytes']} "
        f"| {f['pages']} ({f['community_pages']}) | {len(f['added_outside_folder'])} | {len(f['unresolved'])} "
        f"| {f['day_links']} ({f['day_links_unresolved']}) | {f['undo_exact']} "
        f"| {f['related_links']} ({f['related_new']}, {share}) | {f['seconds']:.2f} ({f['cpu_seconds']:.2f}) "
        f"| {f['s_per_1000']:.2f} | {f['second_run_written']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic", type=int, default=0, help="also measure a generated vault of N notes")
    parser.add_argument("--results", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--keep", type=Path, help="keep the written vault copies in this folder")
    args = parser.parse_args()
    vaults = [(CORPORA / "obsidian-kepano", "obsidian"), (CORPORA / "obsidian-ideaverse", "obsidian"),
              (CORPORA / "logseq-docs", "logseq")]
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.synthetic:
            vaults.append((synthetic_vault(Path(tmp), args.synthetic), "obsidian"))
        print("| vault | kind | notes | written | skipped | bytes changed outside mnemo-* properties "
              "| generated pages (communities) | files added outside the owned folder | unresolved links "
              "| day links (unresolved) | undo exact | related links (new to the note, share) "
              "| write-back s (CPU s) | s per 1,000 notes | 2nd run writes |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for index, (source, kind) in enumerate(vaults):
            if not source.exists():
                print(f"| {source.name} | missing |" + " |" * 13)
                continue
            work = (args.keep / str(index)) if args.keep else Path(tmp) / str(index)
            work.mkdir(parents=True, exist_ok=True)
            figures = measure(source, kind, work)
            found.append(figures)
            print(_row(figures), flush=True)
    if args.results:
        kept = [{k: v for k, v in f.items() if k not in ("seconds", "cpu_seconds", "s_per_1000")} for f in found]
        args.results.write_text(json.dumps({"date": dt.date.today().isoformat(), "embedder": "hashing",
                                            "day": DAY, "vaults": kept}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
