"""The many-machine deployment files agree with each other: the shards of deploy/mnemo.yaml are the
queues, volumes and `MNEMO_SHARD`s of the compose file and of the Helm chart's values, and the run
queue keeps one run per namespace in each."""

from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemo.config import MnemoConfig, parse_config
from tests.support import REPO

DEPLOY = REPO / "deploy"
ONE_PER_NAMESPACE = [{"key": key, "value": {"applyLimitPerUniqueValue": True}, "limit": 1}
                     for key in ("mnemo/namespace", "dagster/partition")]


def load(name: str) -> Any:
    return yaml.safe_load((DEPLOY / name).read_text(encoding="utf-8"))


def shard_config() -> MnemoConfig:
    return parse_config(load("mnemo.yaml"), DEPLOY / "mnemo.yaml")


def env_of(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}


def queue_in(command: list[str]) -> str:
    return command[command.index("-Q") + 1]


def test_the_instance_keeps_one_run_per_namespace_and_launches_on_shards() -> None:
    instance = load("dagster.yaml")
    assert instance["concurrency"]["runs"]["tag_concurrency_limits"] == ONE_PER_NAMESPACE
    assert instance["run_launcher"] == {**instance["run_launcher"], "module": "mnemo_dagster.shards.launcher",
                                        "class": "ShardRunLauncher"}
    storage = instance["storage"]["custom"]
    assert (storage["module"], storage["class"]) == ("mnemo_dagster.shards.storage", "PooledPostgresStorage")
    assert storage["config"]["postgres_url"] == {"env": "MNEMO_POSTGRES_URL"}


def test_helm_values_have_the_same_shards_queue_rule_and_launcher() -> None:
    values, config = load("helm-values.yaml"), shard_config()
    queued = values["dagsterDaemon"]["runCoordinator"]["config"]["queuedRunCoordinator"]
    assert queued["tagConcurrencyLimits"] == ONE_PER_NAMESPACE
    custom = values["runLauncher"]["config"]["customRunLauncher"]
    assert (values["runLauncher"]["type"], custom["module"], custom["class"]) == \
        ("CustomRunLauncher", "mnemo_dagster.shards.launcher", "ShardRunLauncher")
    maps = {m["metadata"]["name"]: m for m in values["extraManifests"] if m["kind"] == "ConfigMap"}
    inside = parse_config(yaml.safe_load(maps["mnemo-config"]["data"]["mnemo.yaml"]), Path("/etc/mnemo/mnemo.yaml"))
    assert {s: (c.data_dir, c.queue) for s, c in inside.shards.items()} == \
        {s: (c.data_dir, c.queue) for s, c in config.shards.items()}
    sets = [m for m in values["extraManifests"] if m["kind"] == "StatefulSet"]
    seen = []
    for stateful in sets:
        assert stateful["spec"]["replicas"] == 1  # one writer per shard
        containers = {c["name"]: c for c in stateful["spec"]["template"]["spec"]["containers"]}
        shard = env_of(containers["worker"])["MNEMO_SHARD"]
        assert env_of(containers["serve"])["MNEMO_SHARD"] == shard
        assert queue_in(containers["worker"]["command"]) == inside.shards[shard].queue
        for container in containers.values():
            mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
            assert Path(mounts["data"]) == inside.shards[shard].data_dir
        seen.append(shard)
    assert sorted(seen) == sorted(config.shards)


def test_compose_runs_a_worker_and_a_server_per_shard() -> None:
    services, config = load("compose.yaml")["services"], shard_config()
    roles: dict[str, list[str]] = {}
    for service in services.values():
        shard = (service.get("environment") or {}).get("MNEMO_SHARD")
        if shard is None:
            continue
        volume = next(v for v in service["volumes"] if v.startswith("shard-"))
        assert Path(volume.split(":")[1]) == config.shards[shard].data_dir and volume.startswith(f"shard-{shard}:")
        if "celery" in service["command"]:
            assert queue_in(service["command"]) == config.shards[shard].queue
        roles.setdefault(shard, []).append(service["command"][0])
    assert {s: sorted(r) for s, r in roles.items()} == {s: ["celery", "mnemo"] for s in config.shards}


def test_the_launcher_routes_a_namespace_to_its_shard_queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("dagster_celery", reason="the scale extra is not installed")
    import dagster as dg

    from mnemo_dagster.shards.launcher import shard_queue

    path = tmp_path / "mnemo.yaml"
    path.write_text(yaml.safe_dump({"shards": {"a": {"data_dir": "a"}, "b": {"data_dir": "b", "queue": "bq"}},
                                    "placement": {"ana": "a", "bo": "b"}}), encoding="utf-8")
    monkeypatch.setenv("MNEMO_CONFIG", str(path))
    run = dg.DagsterRun(job_name="ingest_job", tags={"dagster/partition": "bo"})
    assert shard_queue(run) == "bq"
    assert shard_queue(dg.DagsterRun(job_name="ingest_job", tags={"mnemo/namespace": "ana"})) == "mnemo-a"
    assert shard_queue(dg.DagsterRun(job_name="ingest_job")) is None


def test_the_daemon_and_webserver_load_the_code_from_one_code_server() -> None:
    compose, workspace = load("compose.yaml"), load("workspace.yaml")
    services, env = compose["services"], compose["x-mnemo"]["environment"]
    served = workspace["load_from"][0]["grpc_server"]
    assert served["host"] == {"env": "MNEMO_CODE_SERVER_HOST"} and served["port"] == {"env": "MNEMO_CODE_SERVER_PORT"}
    code = services[env["MNEMO_CODE_SERVER_HOST"]]["command"]
    assert code[:3] == ["dagster", "code-server", "start"] and code[code.index("-m") + 1] == "mnemo_dagster.definitions"
    assert code[code.index("-p") + 1] == env["MNEMO_CODE_SERVER_PORT"]
    for role in ("daemon", "webserver"):
        command = services[role]["command"]
        assert command[command.index("-w") + 1] == "deploy/workspace.yaml"
        assert "code" in services[role]["depends_on"]


def test_every_worker_imports_what_runs_need_when_it_starts() -> None:
    commands = [s["command"] for s in load("compose.yaml")["services"].values() if "celery" in s.get("command", [])]
    commands += [c["command"] for m in load("helm-values.yaml")["extraManifests"] if m["kind"] == "StatefulSet"
                 for c in m["spec"]["template"]["spec"]["containers"] if "celery" in c["command"]]
    assert len(commands) == 4
    assert all(command[command.index("-I") + 1] == "mnemo_dagster.shards.worker" for command in commands)
