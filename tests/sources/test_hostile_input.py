"""Hostile and broken files: every parser raises only SourceError, quickly, and the run goes on.

Fuzzing uses Hypothesis with a fixed example budget per parser (FUZZ_EXAMPLES, raised by
setting MNEMO_FUZZ_EXAMPLES for a long run) and a per-example deadline, so a hang fails.
"""

import json
import os
import time
import tracemalloc
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.config import SourceConfig
from mnemo.documents import Document
from mnemo.errors import SourceError
from mnemo.sources import walk as walk_module
from mnemo.sources.scan import MAX_FILE_BYTES, PARSERS, scan_namespace
from mnemo.sources.walk import Problem, walk_files

FUZZ_EXAMPLES = int(os.environ.get("MNEMO_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

# Pieces that parsers of notes and chats care about, to steer random text into their paths.
MARKUP = st.sampled_from([
    "---\n", "---", "\n", "\r\n", "title: x\n", "aliases: [a, b]\n", "tags: #x\n", "type: person\n", "- ", "  ",
    "[[", "]]", "[[A|B]]", "![[img.png]]", "#tag ", "```\n", "`", "> ", "# H\n", "&a [1]\n", "*a\n", "!!python/object:x\n",
    "{", "}", "[", "]", ":", "'", '"', "\\", "\x00", "\ufeff", "é", "\u0301", "\u202e", "%", "{{x}}", "\t", "key:: value\n",
    '{"role": "user", "content": "hi"}', '[{"mapping": {}}]', "null", "1e999", "-", "|", "^block", "$$",
])
TEXTS = st.lists(st.one_of(MARKUP, st.text(max_size=20)), max_size=40).map("".join)
# Chat exports are JSON: random documents built from the keys their readers look for.
KEYS = st.sampled_from([
    "mapping", "message", "content", "parts", "author", "role", "create_time", "update_time", "title", "children", "parent",
    "id", "uuid", "name", "chat_messages", "sender", "text", "created_at", "conversation_id", "timestamp", "speaker", "turns",
])
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30))
JSON = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)), max_leaves=40)
JSON_LINES = st.lists(JSON, max_size=5).map(lambda rows: "\n".join(json.dumps(r) for r in rows))
RAW = st.one_of(
    st.binary(max_size=2000),
    TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")),
    JSON.map(lambda v: json.dumps(v).encode()),
    JSON_LINES.map(str.encode),
)


def parse(kind: str, data: bytes, rel: str = "fuzz/note.md") -> list[Document]:
    parser, _ = PARSERS[kind]
    return parser(data, "fuzz", f"{kind}:fuzz", rel, "2026-01-01T00:00:00+00:00")


@pytest.mark.parametrize("kind", sorted(PARSERS))
def test_fuzz_every_parser_raises_only_source_errors(kind: str) -> None:
    @FUZZ
    @given(RAW)
    def check(data: bytes) -> None:
        try:
            docs = parse(kind, data)
        except SourceError as exc:
            assert exc.path and exc.reason
            return
        for doc in docs:
            assert doc.id and doc.namespace == "fuzz"

    check()


def note(text: str) -> list[Document]:
    return parse("obsidian", text.encode())


def timed(fn, *args: object) -> tuple[object, float]:  # noqa: ANN001
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def test_yaml_billion_laughs_is_refused_quickly() -> None:
    levels = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    docs, seconds = timed(note, "---\n" + "\n".join(levels) + "\n---\nbody stays\n")
    assert seconds < 2
    assert "YAML aliases" in docs[0].problems[0] and docs[0].body.strip() == "body stays"


@pytest.mark.parametrize("opening", ["[", "{a: ", "- "])
def test_deeply_nested_frontmatter_is_a_per_file_problem(opening: str) -> None:
    depth = 3000
    closing = {"[": "]", "{a: ": "}", "- ": ""}[opening]
    text = "---\nx: " + opening * depth + "1" + closing * depth + "\n---\nstill here\n"
    docs, seconds = timed(note, text)
    assert seconds < 5
    assert docs[0].body.strip() == "still here"


def test_deeply_nested_markdown_body_parses() -> None:
    body = "".join("> " * i + f"level {i} [[Link {i}]]\n" for i in range(0, 400, 7)) + "- " * 5000 + "deep\n"
    docs, seconds = timed(note, body)
    assert seconds < 5 and any(link.target == "Link 7" for link in docs[0].links)


def write(folder: Path, rel: str, data: bytes) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def scan(folder: Path) -> tuple[dict[str, Document], dict[str, str]]:
    result = scan_namespace("test", (SourceConfig(kind="obsidian", path=folder),), [], [])
    return {d.path: d for d in result.documents}, {p.path: p.reason for p in result.problems}


def test_broken_files_are_reported_one_by_one_and_the_rest_is_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "good.md", b"# Fine\nA normal note.\n")
    write(vault, "nul.md", b"# x\n\x00\x01binary")
    write(vault, "latin1.md", "caf\xe9 au lait".encode("latin-1"))
    write(vault, "utf16.md", "# note".encode("utf-16"))
    write(vault, "empty.md", b"  \n")
    with (vault / "huge.md").open("wb") as handle:  # sparse: 100 MB on paper, nothing on disk
        handle.truncate(100 * 1024 * 1024)
    docs, problems = scan(vault)
    assert set(docs) == {"good.md"}
    assert "NUL" in problems["nul.md"] and "UTF-8" in problems["latin1.md"] and "NUL" in problems["utf16.md"]
    assert "empty" in problems["empty.md"] and f"{MAX_FILE_BYTES}-byte limit" in problems["huge.md"]


def test_a_large_note_parses_in_bounded_time_and_memory(tmp_path: Path) -> None:
    paragraph = "Met [[Alice Chen]] about #robotics and the [[Project Heron]] plan. " * 20 + "\n\n"
    data = ("---\ntype: project\n---\n" + "## Part\n" + paragraph * 300).encode()  # about 0.4 MB
    tracemalloc.start()
    docs, seconds = timed(parse, "obsidian", data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(docs[0].links) == 2 * 20 * 300
    assert seconds < 10 and peak < 40 * len(data), (seconds, peak)


def test_paths_leaving_the_vault_are_never_followed(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    write(outside, "secret.md", b"# Secret\nbank pin 1234\n")
    write(vault, "note.md", b"See [[../outside/secret]] and [x](../outside/secret.md) and [[/etc/passwd]].\n")
    (vault / "link.md").symlink_to(outside / "secret.md")
    (vault / "linked folder").symlink_to(outside, target_is_directory=True)
    (vault / "abs.md").symlink_to("/etc/hostname")
    write(vault, "inside/real.md", b"# Real\n")
    (vault / "alias to real.md").symlink_to(vault / "inside" / "real.md")
    docs, problems = scan(vault)
    assert set(docs) == {"note.md", "inside/real.md", "alias to real.md"}
    assert "outside the source folder" in problems["link.md"] and "outside the source folder" in problems["abs.md"]
    assert not any("secret" in d.body for d in docs.values() if d.path != "note.md")
    assert {link.target for link in docs["note.md"].links} >= {"../outside/secret", "/etc/passwd"}


def test_files_are_walked_in_path_order_a_folders_files_before_its_subfolders(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for rel in ("b.md", "a.md", "z/c.md", "A/d.md", "A/B/e.md", "A/f.md", ".obsidian/g.md", "A/.trash/h.md", "A/~$i.md", "j.txt"):
        write(vault, rel, b"# Note\n")
    (vault / "A" / "link to z").symlink_to(vault / "z", target_is_directory=True)
    (vault / "A" / "broken.md").symlink_to(vault / "gone.md")
    problems: list[Problem] = []
    walked = list(walk_files(vault, (".md",), ("z/c.md",), problems))
    assert [rel for rel, _, _ in walked] == ["a.md", "b.md", "A/d.md", "A/f.md", "A/B/e.md"]
    assert [(p, os.stat(p).st_mtime_ns, os.stat(p).st_size) for _, p, _ in walked] == \
        [(str(vault / rel), stat.st_mtime_ns, stat.st_size) for rel, _, stat in walked]
    assert [(p.path, p.fatal) for p in problems] == [("A/broken.md", True)] and "broken symlink" in problems[0].reason


def test_a_folder_that_cannot_be_listed_is_a_problem_and_the_rest_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = tmp_path / "vault"
    write(vault, "ok.md", b"# Fine\n")
    write(vault, "Private/secret.md", b"# Hidden\n")
    write(vault, "Public/open.md", b"# Open\n")
    listing = os.scandir

    def refusing(path: str) -> object:
        if Path(path).name == "Private":
            raise PermissionError(13, "Permission denied")
        return listing(path)

    monkeypatch.setattr(walk_module.os, "scandir", refusing)  # root may list any folder: the refusal is made
    docs, problems = scan(vault)
    assert set(docs) == {"ok.md", "Public/open.md"}
    assert problems == {"Private": "cannot list folder (Permission denied; its files were skipped)"}


def test_odd_file_names_are_ingested_as_data(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    nfc, nfd = (unicodedata.normalize(form, "Café Zoë") for form in ("NFC", "NFD"))
    assert nfc != nfd
    write(vault, "line\nbreak.md", b"# One\nA name with a newline.\n")
    write(vault, f"{nfc}.md", b"composed form\n")
    write(vault, f"{nfd}.md", b"decomposed form\n")
    write(vault, "-rf --help.md", b"dash name\n")
    docs, problems = scan(vault)
    assert problems == {}
    assert {"line\nbreak.md", f"{nfc}.md", f"{nfd}.md", "-rf --help.md"} == set(docs)
    assert docs[f"{nfc}.md"].id != docs[f"{nfd}.md"].id
