"""`mnemo shard move`: a namespace's data and keys go to the target shard and it is placed there."""

from pathlib import Path

import dagster as dg
import pytest
import yaml
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.config import load_config
from mnemo.maintenance.dump import canonical_dump
from mnemo.maintenance.shard_move import placed_text
from mnemo.serve.api_keys import KeyStore
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from ontology import load_ontology
from tests.support import REPO

CONFIG = """# the team's memory
embedder:
  kind: hashing   # fast, offline
shards:
  a:
    data_dir: roots/a   # machine one
  b:
    data_dir: roots/b
placement:
  ana: a   # pinned
namespaces:
  ana:
    sources:
      - kind: obsidian
        path: {vault}
"""


@pytest.fixture()
def placed(tmp_path: Path) -> Path:
    path = tmp_path / "mnemo.yaml"
    path.write_text(CONFIG.format(vault=REPO / "examples" / "vault"), encoding="utf-8")
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("namespace", ["ana"])
    job = build_defs(default_resources(str(path))).resolve_job_def("ingest_job")
    quiet = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
    assert job.execute_in_process(partition_key="ana", instance=instance, run_config=quiet).success
    return path


def test_move_takes_data_keys_and_placement_to_the_target(placed: Path) -> None:
    roots = placed.parent / "roots"
    before = canonical_dump(roots / "a", "ana", load_ontology())
    assert before["documents"] and not (roots / "b" / "ana").exists()
    _, token = KeyStore(roots / "a").create("ana", "app")
    result = CliRunner().invoke(app, ["shard", "move", "ana", "b", "--config", str(placed)])
    assert result.exit_code == 0, result.output
    assert "moved 'ana' from shard 'a' to 'b'" in result.output and "1 API key(s)" in result.output
    assert canonical_dump(roots / "b", "ana", load_ontology()) == before
    assert not (roots / "a" / "ana").exists() and list((roots / "a" / ".moved").glob("ana-*.tar"))
    assert KeyStore(roots / "b").namespace_of(token) == "ana" and KeyStore(roots / "a").namespace_of(token) is None
    assert load_config(placed).shard_of("ana") == "b"
    text = placed.read_text(encoding="utf-8")
    assert "# the team's memory" in text and "# machine one" in text and "  ana: b" in text
    listed = CliRunner().invoke(app, ["shard", "list", "--json", "--config", str(placed)])
    assert '"shard": "b"' in listed.output and '"data": true' in listed.output


def test_a_move_that_makes_no_sense_changes_nothing(placed: Path) -> None:
    text = placed.read_text(encoding="utf-8")
    for args, message in ((["ana", "a"], "already on shard 'a'"), (["ana", "z"], "no shard 'z'")):
        result = CliRunner().invoke(app, ["shard", "move", *args, "--config", str(placed)])
        assert result.exit_code == 2 and message in " ".join(result.output.split())
    assert placed.read_text(encoding="utf-8") == text and (placed.parent / "roots" / "a" / "ana").exists()


@pytest.mark.parametrize("text", ["data_dir: x\n", "placement: {}\nembedder: {kind: hashing}\n",
                                  "placement:\n  bo: a  # pinned\n  cy: b\nx: 1\n", "placement:\n  cy: a\n"])
def test_placement_is_written_and_the_rest_kept(text: str) -> None:
    new = yaml.safe_load(placed_text(text, "cy", "b"))
    old = yaml.safe_load(text)
    assert new["placement"]["cy"] == "b"
    assert {k: v for k, v in new.items() if k != "placement"} == {k: v for k, v in old.items() if k != "placement"}
    assert {k: v for k, v in new["placement"].items() if k != "cy"} == \
        {k: v for k, v in (old.get("placement") or {}).items() if k != "cy"}
