"""The store resources read mnemo.yaml once for each store they open."""

from pydantic import PrivateAttr

from mnemo.config import MnemoConfig
from mnemo_dagster.resources import GraphResource, MnemoConfigResource, VectorResource
from tests.support import Workspace


class CountedLoads(MnemoConfigResource):
    """The configuration resource, counting how often it loads the file."""

    _loads: int = PrivateAttr(default=0)

    def load(self) -> MnemoConfig:
        self._loads += 1
        return super().load()


def test_each_store_reads_the_configuration_once(workspace: Workspace) -> None:
    graph_config, vector_config = (CountedLoads(config_path=str(workspace.config_path)) for _ in range(2))
    graph = GraphResource(config=graph_config).store("test")
    vectors = VectorResource(config=vector_config).store("test")
    assert graph.path == workspace.files().graph_path and vectors.path == workspace.files().vectors_path
    assert (graph_config._loads, vector_config._loads) == (1, 1)
