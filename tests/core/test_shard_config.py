"""Sharding in mnemo.yaml: the namespace -> shard rule, a process's own shard, refusals elsewhere."""

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml

from mnemo.config import load_config, parse_config, rendezvous_shard
from mnemo.errors import ConfigError, MisplacedNamespace
from mnemo_dagster.resources import MnemoConfigResource
from tests.support import REPO


def sharded(tmp_path: Path, placement: dict[str, str] | None = None, shards: tuple[str, ...] = ("a", "b")) -> Path:
    path = tmp_path / "mnemo.yaml"
    config = {"embedder": {"kind": "hashing"}, "placement": placement or {},
              "namespaces": {ns: {} for ns in placement or {}},  # a namespace exists only when listed
              "shards": {s: {"data_dir": f"roots/{s}", "url": f"http://{s}.example:8765"} for s in shards}}
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def test_the_rule_is_stable_and_placement_overrides_it(tmp_path: Path) -> None:
    config = load_config(sharded(tmp_path, {"alice": "a"}))
    names = [f"person-{i}" for i in range(200)]
    by_hash = {ns: config.shard_of(ns) for ns in names}
    # the rule a deployment's data depends on: it must never change between versions
    assert [by_hash[f"person-{i}"] for i in range(8)] == ["b", "a", "a", "a", "b", "b", "b", "a"]
    assert 70 < sum(s == "a" for s in by_hash.values()) < 130  # balanced
    assert config.shard_of("alice") == "a" and rendezvous_shard("alice", ["a", "b"]) == "b"  # placement wins
    assert config.data_root("alice") == tmp_path / "roots" / "a"
    assert config.queue_of("alice") == "mnemo-a"


def test_adding_a_shard_moves_only_namespaces_onto_it(tmp_path: Path) -> None:
    names = [f"person-{i}" for i in range(300)]
    before = {ns: rendezvous_shard(ns, ["a", "b"]) for ns in names}
    after = {ns: rendezvous_shard(ns, ["a", "b", "c"]) for ns in names}
    moved = [ns for ns in names if before[ns] != after[ns]]
    assert moved and all(after[ns] == "c" for ns in moved)
    assert 60 < len(moved) < 140  # about a third


def test_a_bad_shards_section_names_the_file_and_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"(?s)mnemo.yaml.*placement.*'alice' is placed on 'z'"):
        load_config(sharded(tmp_path, {"alice": "z"}))
    with pytest.raises(ConfigError, match="invalid shard name"):
        parse_config({"shards": {"Bad Name": {"data_dir": "x"}}}, tmp_path / "mnemo.yaml")


def test_a_process_is_its_shard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = sharded(tmp_path, {"alice": "a", "bob": "b"})
    monkeypatch.setenv("MNEMO_SHARD", "a")
    config = load_config(path)
    assert config.shard == "a" and config.data_dir == tmp_path / "roots" / "a"
    assert config.holds("alice") and not config.holds("bob")
    resource = MnemoConfigResource(config_path=str(path))
    assert resource.files("alice").root == tmp_path / "roots" / "a" / "alice"
    with pytest.raises(MisplacedNamespace, match=r"'bob' is held by shard 'b' at http://b.example:8765"):
        resource.files("bob")  # a worker of shard a never writes bob's files
    monkeypatch.setenv("MNEMO_SHARD", "nope")
    with pytest.raises(ConfigError, match=r"MNEMO_SHARD names shard 'nope'.*\(a, b\)"):
        load_config(path)


def test_unsharded_config_is_unchanged(tmp_path: Path) -> None:
    config = parse_config({"data_dir": "data"}, tmp_path / "mnemo.yaml")
    assert config.shard_of("x") is None and config.queue_of("x") is None
    assert config.data_root("x") == tmp_path / "data" and config.holds("x")


def test_a_shard_server_answers_421_naming_the_shard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.serve.test_api import start_server

    path = sharded(tmp_path, {"alice": "a", "bob": "b"})
    env = {**os.environ, "MNEMO_SHARD": "a"}
    subprocess.run([sys.executable, "-m", "mnemo.cli.main", "keys", "create", "alice", "--config", str(path)],
                   env=env, cwd=REPO, check=True, capture_output=True)
    monkeypatch.setenv("MNEMO_SHARD", "a")  # the server's environment: it is shard a
    proc, url = start_server(str(path))
    try:
        answer = httpx.get(f"{url}/v1/bob/recall", params={"q": "hello"}, timeout=30)
        assert answer.status_code == 421
        assert answer.headers["Mnemo-Shard"] == "b" and answer.headers["Mnemo-Shard-URL"] == "http://b.example:8765"
        assert answer.json()["shard"] == "b" and "held by shard 'b'" in answer.json()["detail"]
        held = httpx.get(f"{url}/v1/alice/recall", params={"q": "hello"}, timeout=30)
        assert held.status_code == 401  # a namespace held here: its keys apply
    finally:
        proc.terminate()
        proc.wait(timeout=10)
