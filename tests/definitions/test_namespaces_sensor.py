"""The namespaces sensor adds a partition per configured namespace and requests its first ingest."""

import dagster as dg

from mnemo_dagster.jobs import NAMESPACE_TAG
from mnemo_dagster.resources import MnemoConfigResource
from mnemo_dagster.sensors import namespaces_sensor
from tests.support import Workspace


def test_new_namespace_gets_a_partition_and_a_run(workspace: Workspace) -> None:
    resource = MnemoConfigResource(config_path=str(workspace.config_path))
    with dg.build_sensor_context(instance=workspace.instance, resources={"mnemo_config": resource}) as context:
        result = namespaces_sensor(context)
    assert [(r.partition_key, r.tags[NAMESPACE_TAG]) for r in result.run_requests] == [("test", "test")]
    assert result.dynamic_partitions_requests[0].partition_keys == ["test"]
    workspace.instance.add_dynamic_partitions("namespace", ["test"])
    with dg.build_sensor_context(instance=workspace.instance, resources={"mnemo_config": resource}) as context:
        again = namespaces_sensor(context)
    assert isinstance(again, dg.SkipReason)


def test_bad_config_skips_with_the_reason(workspace: Workspace) -> None:
    workspace.config_path.write_text("namespaces: [not, a, mapping]\n", encoding="utf-8")
    resource = MnemoConfigResource(config_path=str(workspace.config_path))
    with dg.build_sensor_context(instance=workspace.instance, resources={"mnemo_config": resource}) as context:
        result = namespaces_sensor(context)
    assert isinstance(result, dg.SkipReason)
    assert "invalid configuration" in result.skip_message
