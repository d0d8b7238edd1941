"""Write-back on a real workspace: real Kùzu graph, real files, the CLI and the asset."""

import os
import re
import shutil
import stat
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import pytest
import yaml
from typer.testing import CliRunner

from benchmarks.writeback import snapshot
from mnemo.cli.main import app
from mnemo.sources.watch import fingerprint
from mnemo.sources.watch import snapshot as watch_snapshot
from mnemo.stores.graph import GraphStore
from mnemo.writeback.run import apply_plan, journal_for, plan_namespace, writeback_namespace
from ontology import load_ontology
from tests.support import EXAMPLE_VAULT, Workspace, make_workspace

DAY = "2026-11-22"
NIGHT = datetime(2026, 11, 22, 3, tzinfo=UTC)
BROKEN = {"Concepts/Zettelkasten.md", "People/Jonas Weber.md", "Places/Café Lusitano.md"}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example vault ingested once; each test gets its own copy of vault and stores."""
    root = tmp_path_factory.mktemp("template")
    shutil.copytree(EXAMPLE_VAULT, root / "vault")
    make_workspace(root, {"test": [{"kind": "obsidian", "path": str(root / "vault")}]}).ingest()
    return root


@pytest.fixture
def vault(template: Path, tmp_path: Path) -> Path:
    shutil.copytree(template / "vault", tmp_path / "vault")
    shutil.copytree(template / "data", tmp_path / "data")
    return tmp_path / "vault"



def mtimes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in sorted(root.rglob("*.md"))}


def strip_mnemo(text: str) -> set[str]:
    """Independent of the patcher: the text without the `mnemo-*:` lines and their indented lines
    (and without the frontmatter that then is empty, for notes that had none)."""
    out = re.sub(r"(?m)^mnemo(?:-[\w-]+)?:[^\n]*\n(?:[ \t][^\n]*\n)*", "", text)
    return {out, out.removeprefix("---\n---\n")}


def run(workspace: Workspace, day: str = DAY):  # noqa: ANN201 - (plan, report)
    return writeback_namespace(workspace.config, "test", load_ontology(), today=day)


def test_full_writeback_touches_only_mnemo_blocks_and_is_quiet_after(workspace: Workspace, vault: Path) -> None:
    before = snapshot(vault)
    plan, report = run(workspace)
    after = snapshot(vault)
    assert len(report.written) >= 40
    assert {s.path for s in report.skipped} == BROKEN
    assert all("left as it is" in s.reason or "never closed" in s.reason for s in report.skipped)
    changed = {p for p in before if before[p] != after[p]}
    assert changed == set(report.written)
    for path in changed:
        assert before[path].decode() in strip_mnemo(after[path].decode()), path
    alice = after["People/Alice Chen.md"].decode()
    props = yaml.safe_load(alice.split("---\n")[1])
    related = [link[2:-2] for link in props["mnemo-related"]]
    assert related and "Project Heron" not in related  # the note links it already
    assert not [n for n in related if f"[[{n}]]" in before["People/Alice Chen.md"].decode()]
    assert "mnemo-related-why" not in props  # no reasons in English template words, no list matched by position
    assert "[[2026-11-20]]" in props["mnemo-mentioned-in"] and props["mnemo-mentioned-count"] >= 1
    assert f'\nmnemo-updated: {DAY}\n---\n' in alice
    assert "person_id:" not in alice and "mnemo:" not in alice and "salience" not in alice

    stamps = mtimes(vault)
    nothing_new = plan.unchanged  # notes with nothing to write get no properties at all
    plan, report = run(workspace, "2026-12-01")
    assert report.written == [] and plan.unchanged == len(changed) + nothing_new
    assert mtimes(vault) == stamps and snapshot(vault) == after


def test_ingest_does_not_see_a_writeback_as_an_edit(workspace: Workspace, vault: Path) -> None:
    watched = fingerprint(watch_snapshot([vault], {}))
    run(workspace)
    assert fingerprint(watch_snapshot([vault], {})) == watched
    again = workspace.metadata(workspace.ingest(), "documents")
    assert (again["new"], again["changed"], again["deleted"]) == (0, 0, 0)
    note = vault / "People" / "Alice Chen.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nA new line by hand.\n", encoding="utf-8")
    edited = workspace.metadata(workspace.ingest(), "documents")
    assert edited["changed"] == 1


def test_undo_restores_every_byte_and_dry_run_writes_nothing(workspace: Workspace, vault: Path) -> None:
    with workspace.graph().connect() as conn:  # a community, as sleep mode makes it: its page is generated
        conn.execute("CREATE (:Community {id: 'c1', level: 0, title: 'Heron team', summary: 'Alice leads Project Heron.'})")
        conn.execute("MATCH (e:Entity {id: 'person_alice_chen'}), (c:Community {id: 'c1'}) CREATE (e)-[:IN_COMMUNITY]->(c)")
    original = snapshot(vault)
    cli = CliRunner()
    args = ["--namespace", "test", "--config", str(workspace.config_path)]
    dry = cli.invoke(app, ["writeback", "--dry-run", "--diff", *args])
    assert dry.exit_code == 0, dry.output
    assert "--- a/People/Alice Chen.md" in dry.output and "+mnemo-related:" in dry.output
    assert "page create " in dry.output and "Mnemo/Communities/Heron team (community).md" in dry.output
    assert "generated pages: 1 to create, 0 to replace, 0 to remove" in dry.output
    assert snapshot(vault) == original
    wrote = cli.invoke(app, ["writeback", *args])
    assert wrote.exit_code == 0, wrote.output
    run_id = re.search(r"run (wb-\S+):", wrote.output).group(1)
    assert snapshot(vault) != original
    listed = cli.invoke(app, ["writeback", "--runs", *args])
    assert run_id in listed.output
    undone = cli.invoke(app, ["writeback", "--undo", run_id[:14], *args])
    assert undone.exit_code == 0, undone.output
    assert snapshot(vault) == original
    missing = cli.invoke(app, ["writeback", "--undo", "nope", *args])
    assert missing.exit_code == 2 and "no write-back run" in missing.output


def test_a_note_edited_between_read_and_write_is_skipped_and_kept(workspace: Workspace, vault: Path) -> None:
    plan = plan_namespace(workspace.config, "test", load_ontology(), DAY)
    note = vault / "Projects" / "Project Heron.md"
    edited = note.read_text(encoding="utf-8") + "\nTyped while mnemo was writing.\n"
    note.write_text(edited, encoding="utf-8")
    report = apply_plan(plan, journal_for(workspace.config, "test"), "wb-test")
    assert "Projects/Project Heron.md" not in report.written
    assert any(s.path == "Projects/Project Heron.md" and "changed since" in s.reason for s in report.skipped)
    assert note.read_text(encoding="utf-8") == edited
    _, retry = run(workspace)
    assert retry.written == ["Projects/Project Heron.md"]
    assert "Typed while mnemo was writing." in note.read_text(encoding="utf-8")


def test_read_only_notes_and_folders_are_reported_and_the_run_goes_on(workspace: Workspace, vault: Path) -> None:
    note, folder = vault / "People" / "Alice Chen.md", vault / "Places"
    kept = vault / "Projects" / "Tidepool.md"
    note.chmod(0o444)
    folder.chmod(0o555)
    kept.chmod(0o640)
    try:
        before = snapshot(vault)
        _, report = run(workspace)
    finally:
        note.chmod(0o644)
        folder.chmod(0o755)
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons["People/Alice Chen.md"] == "the file is read-only"
    assert reasons["Places/Kyoto.md"] == "its folder is read-only"
    assert note.read_bytes() == before["People/Alice Chen.md"]
    assert "Projects/Tidepool.md" in report.written
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert not list(vault.rglob("*.mnemo-tmp"))


def test_a_folder_the_system_refuses_is_reported_and_the_run_goes_on(workspace: Workspace, vault: Path) -> None:
    """A real permission error from the OS (an immutable folder refuses even root)."""
    long_name = vault / "Inbox" / ("Long " * 48 + ".md")
    long_name.write_text("Met [[Alice Chen]] about [[Project Heron]]; she lent me Thinking in Systems.\n", encoding="utf-8")
    workspace.ingest()
    folder = vault / "Places"
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        before = snapshot(vault)
        _, report = run(workspace)
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons["Places/Kyoto.md"] == "cannot write the note (Operation not permitted)"
    assert {p: d for p, d in snapshot(vault).items() if p.startswith("Places/")} == {
        p: d for p, d in before.items() if p.startswith("Places/")
    }
    assert "People/Alice Chen.md" in report.written and long_name.relative_to(vault).as_posix() in report.written


def test_opt_out_exclude_and_symlinks(workspace: Workspace, vault: Path) -> None:
    config = yaml.safe_load(workspace.config_path.read_text())
    config["writeback"] = {"exclude": ["Projects"], "key": "memory"}
    workspace.config_path.write_text(yaml.safe_dump(config))
    opted = vault / "Places" / "Lisbon.md"
    opted.write_text(opted.read_text(encoding="utf-8").replace("---\n", "---\nmemory: false\n", 1), encoding="utf-8")
    (vault / "Inbox" / "Alias of Kyoto.md").symlink_to(vault / "Places" / "Kyoto.md")
    workspace.ingest()
    before = snapshot(vault)
    plan, report = run(workspace)
    assert plan.opted_out == 1 and plan.excluded == 5
    assert snapshot(vault)["Places/Lisbon.md"] == before["Places/Lisbon.md"]
    assert all(not p.startswith("Projects/") for p in report.written)
    assert any(s.path == "Inbox/Alias of Kyoto.md" and "symlink" in s.reason for s in report.skipped)
    assert "\nmemory-related:\n" in (vault / "People" / "Alice Chen.md").read_text(encoding="utf-8")


def test_sleep_mode_facts_are_written_when_the_graph_has_them(workspace: Workspace, vault: Path) -> None:
    with workspace.graph().connect() as conn:  # the tables sleep mode writes (mnemo/stores/graph.py)
        conn.execute("CREATE (:Community {id: 'c1', level: 0, title: 'Heron team', summary: 'Alice leads Project Heron.\nMore.'})")
        conn.execute("MATCH (e:Entity {id: 'person_alice_chen'}), (c:Community {id: 'c1'}) CREATE (e)-[:IN_COMMUNITY]->(c)")
        conn.execute("CREATE (:Salience {id: 'salience_person_alice_chen', item_id: 'person_alice_chen', item_kind: 'entity', score: 0.8123})")
    run(workspace)
    alice = (vault / "People" / "Alice Chen.md").read_text(encoding="utf-8")
    assert '\nmnemo-community: "[[Mnemo/Communities/Heron team (community)]]"\n' in alice
    assert "salience" not in alice and "0.812" not in alice
    assert "community:" not in (vault / "Places" / "Porto.md").read_text(encoding="utf-8")
    page = (vault / "Mnemo" / "Communities" / "Heron team (community).md").read_text(encoding="utf-8")
    assert page.startswith("---\nmnemo-generated: true\n---\n") and "Alice leads Project Heron." in page
    assert "\n- [[Alice Chen]]: Tech lead on Project Heron.\n" in page  # the member with its first sentence


def test_note_writeback_asset_is_outside_the_ingest_job(workspace: Workspace, vault: Path) -> None:
    from mnemo_dagster.definitions import build_defs
    from mnemo_dagster.resources import default_resources

    workspace.instance.add_dynamic_partitions("namespace", ["test"])
    defs = build_defs(default_resources(str(workspace.config_path)))
    ingest_keys = {k.to_user_string() for k in defs.get_job_def("ingest_job").asset_layer.asset_graph.executable_asset_keys}
    assert "note_writeback" not in ingest_keys
    result = dg.materialize(
        [defs.get_assets_def("note_writeback")], partition_key="test", instance=workspace.instance,
        resources=default_resources(str(workspace.config_path)),
    )
    assert result.success
    assert workspace.metadata(result, "note_writeback")["written"] >= 40
    entries = journal_for(workspace.config, "test").entries()
    assert {e.run for e in entries} == {result.run_id}
    assert GraphStore(workspace.files().graph_path, load_ontology()).counts()["Note"] > 0
    assert os.path.exists(workspace.files().root / "writeback" / "journal.jsonl")


def test_logseq_pages_get_properties_that_never_feed_back_into_the_graph(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    (graph / "pages").mkdir(parents=True)
    (graph / "pages" / "Alpha.md").write_text("type:: [[Project]]\n\n- works with [[Beta]]\n", encoding="utf-8")
    (graph / "pages" / "Beta.md").write_text("- part of [[Alpha]]\n\t- and [[Gamma]]\n", encoding="utf-8")
    (graph / "pages" / "Gamma.md").write_text("- see [[Alpha]] and [[Beta]]\n", encoding="utf-8")
    (graph / "pages" / "Delta.md").write_text("- next to [[Beta]]\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "logseq", "path": str(graph)}]})
    workspace.ingest()
    _, report = run(workspace)
    # Beta is linked by every other page: nothing new to say there; Alpha, Gamma and Delta all link Beta
    assert sorted(report.written) == ["pages/Alpha.md", "pages/Delta.md", "pages/Gamma.md"]
    alpha = (graph / "pages" / "Alpha.md").read_text(encoding="utf-8")
    assert alpha == (
        'type:: [[Project]]\nmnemo-related:: [[Delta]]\n'
        'mnemo-updated:: "2026-11-22"\n\n- works with [[Beta]]\n'
    )
    assert (graph / "pages" / "Delta.md").read_text(encoding="utf-8") == (
        'mnemo-related:: [[Alpha]], [[Gamma]]\n'
        'mnemo-updated:: "2026-11-22"\n- next to [[Beta]]\n'
    )
    (graph / "pages" / "Alpha.md").write_text(alpha + "- a new bullet\n", encoding="utf-8")
    edited = workspace.metadata(workspace.ingest(), "documents")
    assert edited["changed"] == 1
    doc = next(d for d in workspace.files().read_documents() if d.path == "pages/Alpha.md")
    assert not [k for k in doc.properties if k.startswith("mnemo")]
    assert not [link for link in doc.links if link.property and link.property.startswith("mnemo")]
    roles = workspace.graph().query("MATCH (:Note)-[r:LINKS_TO]->(:Note) RETURN DISTINCT r.role AS role")
    assert not [r for r in roles if (r["role"] or "").startswith("mnemo")]


def test_nightly_run_writes_back_only_when_turned_on(workspace: Workspace, vault: Path) -> None:
    from mnemo_dagster.definitions import build_defs
    from mnemo_dagster.resources import default_resources

    def nightly() -> dg.ScheduleDefinition:
        return build_defs(default_resources(str(workspace.config_path))).resolve_schedule_def("nightly_sleep_schedule")

    assert nightly().job_name == "sleep_mode_job"  # by default the nightly run never edits the notes
    config = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8"))
    config["writeback"] = {"nightly": True}
    workspace.config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    schedule = nightly()
    assert schedule.job_name == "sleep_writeback_job"
    workspace.instance.add_dynamic_partitions("namespace", ["test"])
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("namespace", ["test"])
        requests = schedule(dg.build_schedule_context(instance=instance, scheduled_execution_time=NIGHT))
        assert isinstance(requests, list)
        (request,) = requests
    defs = build_defs(default_resources(str(workspace.config_path)))
    before = (vault / "People" / "Alice Chen.md").read_text(encoding="utf-8")
    result = defs.resolve_job_def(schedule.job_name).execute_in_process(
        partition_key=request.partition_key, instance=workspace.instance, tags=request.tags)
    assert result.success
    done = [e.asset_key.to_user_string() for e in result.get_asset_materialization_events()]
    assert done.index("note_writeback") > done.index("entity_communities")  # after sleep mode made its communities
    after = (vault / "People" / "Alice Chen.md").read_text(encoding="utf-8")
    assert "mnemo-community:" in after and "mnemo-community:" not in before
    assert (vault / "Mnemo" / "Communities").is_dir()
