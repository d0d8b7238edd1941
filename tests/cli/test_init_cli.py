"""`mnemo init` writes a person's own sources into mnemo.yaml: kinds detected, counts said as the
scanner reads them, other namespaces and comments kept, and clear refusals for paths it cannot use."""

import json
import shutil
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.config import load_config
from mnemo.sources.scan import scan_namespace
from tests.support import EXAMPLE_VAULT, corpus

runner = CliRunner()

COMMENTED = """\
# my settings: keep this comment
data_dir: store
namespaces:
  work:   # the office vault
    sources:
      - kind: obsidian
        path: office
embedder:
  kind: hashing  # offline
"""


def _init(config: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["init", "--config", str(config), *args])
    return result.exit_code, " ".join(result.output.split())


def _counts(config: Path, namespace: str) -> Counter[str]:
    settings = load_config(config)
    scanned = scan_namespace(namespace, settings.namespace(namespace).sources, [], [])
    return Counter(d.kind for d in scanned.documents)


def test_a_bare_obsidian_vault_is_detected_counted_and_made_the_default(tmp_path: Path) -> None:
    vault = shutil.copytree(corpus("obsidian-ideaverse"), tmp_path / "ideaverse")
    config = tmp_path / "mnemo.yaml"
    code, out = _init(config, str(vault), "--self", "Ada")
    assert code == 0, out
    counts = _counts(config, "me")
    assert counts["note"] > 0 and counts["journal"] > 0
    assert f"found obsidian {vault}: {counts['note']} notes, {counts['journal']} journals" in out
    settings = load_config(config)
    assert settings.default_namespace_name() == "me"
    assert settings.namespaces["me"].self_name == "Ada"
    assert [s.path for s in settings.namespaces["me"].sources] == [vault.resolve()]


def test_other_namespaces_and_comments_are_kept_and_a_second_run_adds_nothing(tmp_path: Path) -> None:
    config = tmp_path / "mnemo.yaml"
    config.write_text(COMMENTED, encoding="utf-8")
    vault = shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    assert _init(config, "--obsidian", str(vault))[0] == 0
    code, out = _init(config, "--obsidian", str(vault))
    assert code == 0 and "0 new source(s), 1 already there" in out
    text = config.read_text(encoding="utf-8")
    for kept in ("# my settings: keep this comment", "# the office vault", "# offline"):
        assert kept in text
    settings = load_config(config)
    assert [s.path.name for s in settings.namespaces["work"].sources] == ["office"]
    assert len(settings.namespaces["me"].sources) == 1
    assert settings.embedder.kind == "hashing" and settings.data_dir == tmp_path / "store"


def test_an_existing_default_namespace_stays(tmp_path: Path) -> None:
    config = tmp_path / "mnemo.yaml"
    config.write_text(COMMENTED.replace("namespaces:", "default_namespace: work\nnamespaces:"), encoding="utf-8")
    code, out = _init(config, "--obsidian", str(EXAMPLE_VAULT), "--name", "home")
    assert code == 0 and "the default namespace stays 'work': use --namespace home" in out
    assert load_config(config).default_namespace == "work"


def test_logseq_graph_and_chat_exports_are_detected_by_their_shape(tmp_path: Path) -> None:
    graph = shutil.copytree(corpus("logseq-docs"), tmp_path / "graph")
    chatgpt = shutil.copytree(corpus("chat-exports", "chatgpt", "pkuppens-my_chat_gpt"), tmp_path / "gpt")
    export = corpus("chat-exports", "claude", "simonw-claude-to-sqlite", "example.json")
    claude = shutil.copy(export, tmp_path / "c.json")
    config = tmp_path / "mnemo.yaml"
    code, out = _init(config, str(graph), str(chatgpt), str(claude))
    assert code == 0, out
    kinds = [s.kind for s in load_config(config).namespaces["me"].sources]
    assert kinds == ["logseq", "chatgpt", "claude"]
    counts = _counts(config, "me")
    assert f"{counts['journal']} journals" in out
    chats = len(json.loads((chatgpt / "conversations.json").read_text(encoding="utf-8")))
    assert f"found chatgpt {chatgpt}: {chats} conversations" in out
    assert f"found claude {claude}: 1 conversation" in out


def test_a_missing_path_is_refused_and_the_file_is_untouched(tmp_path: Path) -> None:
    config = tmp_path / "mnemo.yaml"
    config.write_text(COMMENTED, encoding="utf-8")
    code, out = _init(config, "--obsidian", str(tmp_path / "nowhere"))
    assert code == 2 and f"{tmp_path / 'nowhere'}: no such file or folder" in out
    assert config.read_text(encoding="utf-8") == COMMENTED


def test_a_folder_with_nothing_readable_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty" / ".obsidian").mkdir(parents=True)
    (tmp_path / "empty" / "blank.md").write_text("  \n", encoding="utf-8")
    (tmp_path / "broken.json").write_text('{"mapping": ', encoding="utf-8")
    config = tmp_path / "mnemo.yaml"
    code, out = _init(config, str(tmp_path / "empty"))
    assert code == 2 and "nothing mnemo can read here as a source of kind obsidian" in out
    code, out = _init(config, "--chatgpt", str(tmp_path / "broken.json"))
    assert code == 2 and "broken.json: invalid JSON at line 1" in out
    assert not config.exists()


def test_a_path_of_unknown_kind_asks_for_a_flag(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n", encoding="utf-8")
    code, out = _init(tmp_path / "mnemo.yaml", str(tmp_path / "notes"))
    assert code == 2 and "cannot tell what this is" in out and "--obsidian" in out
    assert _init(tmp_path / "mnemo.yaml", "--obsidian", str(tmp_path / "notes"))[0] == 0


def test_init_adds_an_inbox_folder_made_when_missing(tmp_path: Path) -> None:
    config = tmp_path / "mnemo.yaml"
    shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    code, out = _init(config, str(tmp_path / "vault"), "--inbox", str(tmp_path / "Memory inbox"))
    assert code == 0, out
    assert "inbox" in out and "empty, ready for what you drop in" in out
    sources = load_config(config).namespace("me").sources
    assert sorted((s.kind, s.path.name) for s in sources) == [("inbox", "Memory inbox"), ("obsidian", "vault")]
    assert (tmp_path / "Memory inbox").is_dir()
    code, out = _init(config, "--inbox", str(tmp_path / "Memory inbox"))  # alone, and again: nothing new
    assert code == 0 and "0 new source(s), 1 already there" in out
