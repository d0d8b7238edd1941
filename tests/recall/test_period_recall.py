"""A question that names a period gets the notes written or dated in it, one passage per note,
with sleep mode's summary of that period beside them (carrying its sources); a question that
names none is ranked as before."""

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.client import MemoryClient
from mnemo.config import SleepConfig
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.consolidate import consolidate
from tests.support import Workspace, make_workspace

NOW = datetime(2026, 11, 21, 3, tzinfo=UTC)
CLOUD = "Private cloud on bare metal: charms deploy the services, containers hold them."
APRIL = {  # written in April 2024 (each note says it in its frontmatter, its file time is today)
    "Juju.md": ("2024-04-10", [CLOUD, "Juju charms model a private cloud on bare metal and containers.",
                               "Juju relations wire containers on bare metal in a private cloud."]),
    "MaaS.md": ("2024-04-12", ["MaaS provisions bare metal machines over the network, like a private cloud."]),
    "Openstack.md": ("2024-04-15", ["Openstack runs a private cloud: compute, storage and networks."]),
    "System containers.md": ("2024-04-20", ["System containers (LXD) boot a whole OS and feel like machines."]),
    "Daily/2024-04-11.md": (None, ["Spent the day on the home lab: Juju, MaaS and Openstack on three servers."]),
}
OTHERS = {
    "Kubernetes.md": ("2023-01-05", [CLOUD + " Kubernetes schedules containers on private cloud bare metal."]),
    "Proxmox.md": ("2025-02-01", [CLOUD + " Proxmox virtualises bare metal for a private cloud with containers."]),
    "Cloud costs.md": (None, [CLOUD + " What private cloud, bare metal and containers cost."]),
}
QUESTION = "Em abril de 2024 escrevi de uma vez várias notas sobre nuvem privada, bare metal e containers. Quais foram?"


@pytest.fixture
def cloud_vault(tmp_path: Path) -> Workspace:
    vault = tmp_path / "vault"
    (vault / "Daily").mkdir(parents=True)
    for name, (day, paragraphs) in {**APRIL, **OTHERS}.items():
        front = f"---\ncreated-at: {day}\n---\n" if day else ""
        sections = "".join(f"## Part {n}\n\n{p}\n\n" for n, p in enumerate(paragraphs))  # a passage each
        (vault / name).write_text(front + sections, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    return workspace


def _client(workspace: Workspace, **ranking: float) -> MemoryClient:
    settings = RecallSettings(random_share=0.0)
    return MemoryClient("test", workspace.config_path,
                        settings=replace(settings, ranking=replace(settings.ranking, **ranking)))


def test_a_period_question_gets_the_notes_of_the_period_one_passage_each(cloud_vault: Workspace) -> None:
    items = _client(cloud_vault).recall(QUESTION, k=7).items
    assert [i.path for i in items[:5]] == list(dict.fromkeys(i.path for i in items[:5]))  # five distinct notes
    assert {i.path for i in items[:5]} == set(APRIL)


def test_the_periods_summary_comes_beside_its_notes(cloud_vault: Workspace) -> None:
    consolidate(cloud_vault.files(), cloud_vault.graph(), SleepConfig(), NOW)
    items = _client(cloud_vault).recall(QUESTION, k=7).items
    assert {i.path for i in items[:5] if i.kind == "chunk"} == set(APRIL)
    [summary] = [i for i in items if i.kind == "summary"]
    assert summary.metadata["period"] == "2024-04" and "period summary" in summary.reasons
    assert set(summary.metadata["source_paths"]) <= set(APRIL)  # notes dated in April, journal or not
    assert set(summary.metadata["source_paths"]) - {"Daily/2024-04-11.md"}


def test_a_question_without_a_period_is_ranked_as_before(cloud_vault: Workspace) -> None:
    question = "notes about private cloud, bare metal and containers"
    with_dates = [i.id for i in _client(cloud_vault).recall(question, k=6).items]
    without = [i.id for i in _client(cloud_vault, date_weight=0.0).recall(question, k=6).items]
    assert with_dates == without

