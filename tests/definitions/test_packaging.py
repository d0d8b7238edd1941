"""The Dagster shell installs under one name, `mnemo_dagster`, with the instance settings inside it;
an invalid mnemo.yaml fails loading the definitions."""

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import dagster as dg
import numpy as np
import pytest
import yaml

import mnemo_dagster
from mnemo.cli.instance import dagster_home, instance_settings
from mnemo.errors import ConfigError
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from tests.support import REPO

SHELL = ("assets", "resources", "sensors", "jobs", "shards", "definitions")
TREE = ("mnemo", "assets", "resources", "sensors", "jobs", "shards", "benchmarks", "scripts", "tests")


def _imports(path: Path) -> list[str]:
    """`path: module` for each module the file imports (function-level imports too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
        found += [f"{path.relative_to(REPO)}: {n}" for n in names]
    return found


def test_the_shell_is_imported_only_by_its_package_name() -> None:
    """`import assets` would load a second copy (or another project's `assets`)."""
    paths = [REPO / "definitions.py", *(p for folder in TREE for p in (REPO / folder).rglob("*.py"))]
    assert [hit for path in paths for hit in _imports(path) if hit.split(": ")[1].split(".")[0] in SHELL] == []


def test_the_package_links_every_shell_folder_and_the_instance_settings() -> None:
    package = Path(mnemo_dagster.__file__).parent
    for name in (*SHELL[:-1], "definitions.py", "dagster.yaml"):
        assert (package / name).resolve() == (REPO / name).resolve(), name
    assert instance_settings() == package / "dagster.yaml"


def test_a_new_instance_links_the_packaged_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    config = tmp_path / "elsewhere" / "mnemo.yaml"
    config.parent.mkdir()
    (config.parent / ".dagster").mkdir()
    (config.parent / ".dagster" / "dagster.yaml").symlink_to(tmp_path / "gone-checkout" / "dagster.yaml")
    home = dagster_home(config)
    assert (home / "dagster.yaml").readlink() == instance_settings()  # a dangling link is replaced
    instance = dg.DagsterInstance.from_config(str(home))
    limits = instance.get_concurrency_config().run_queue_config
    assert limits is not None and {t["key"] for t in limits.tag_concurrency_limits} == {"mnemo/namespace",
                                                                                          "dagster/partition"}
    assert instance.run_monitoring_enabled


def test_an_invalid_config_fails_loading_the_definitions(tmp_path: Path) -> None:
    path = tmp_path / "mnemo.yaml"
    path.write_text(yaml.safe_dump({"data_dir": "data", "sleep": {"merge_threshold": 7}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"(?s)mnemo\.yaml.*sleep\.merge_threshold"):
        build_defs(default_resources(str(path)))


def test_no_config_file_yet_loads_the_definitions_with_defaults(tmp_path: Path) -> None:
    assert build_defs(default_resources(str(tmp_path / "mnemo.yaml"))).get_job_def("ingest_job")


@pytest.mark.slow
def test_the_wheel_holds_no_generic_top_level_names(tmp_path: Path) -> None:
    source = tmp_path / "source"  # a copy, links kept: setuptools builds in the source folder
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "definitions.py", "dagster.yaml"):
        shutil.copy(REPO / name, source / name)
    for name in ("mnemo", "ontology", "mnemo_dagster", *SHELL[:-1]):
        shutil.copytree(REPO / name, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path), str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("mnemo-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"mnemo", "mnemo_dagster", "ontology"}
    assert {"mnemo_dagster/definitions.py", "mnemo_dagster/dagster.yaml", "mnemo_dagster/assets/ingest.py",
            "mnemo_dagster/shards/worker.py", "mnemo_dagster/jobs/code_server.py"} <= set(names)
    assert zipfile.ZipFile(wheel).read("mnemo_dagster/dagster.yaml") == (REPO / "dagster.yaml").read_bytes()


def test_the_runtime_needs_no_fitting_library() -> None:
    """scikit-learn and LightGBM fit the ranking (benchmarks/fitting/, the `eval` extra); the
    installed code never imports them and the default dependencies do not name them."""
    fitting = {"sklearn", "lightgbm"}
    imported = [hit for folder in ("mnemo", *SHELL[:-1]) for path in (REPO / folder).rglob("*.py")
                for hit in _imports(path) if hit.split(": ")[1].split(".")[0] in fitting]
    assert imported == []
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in project["dependencies"] if d.split("==")[0] in {"scikit-learn", "lightgbm"}]
    assert {d.split("==")[0] for d in project["optional-dependencies"]["eval"]} == {"scikit-learn", "lightgbm"}


def test_fitting_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.fitting.ranker_fit import fit_trees

    monkeypatch.setitem(sys.modules, "lightgbm", None)  # as where the extra is not installed
    with pytest.raises(SystemExit, match=r"lightgbm is not installed.*`eval` extra"):
        fit_trees(np.zeros((2, 1)), np.zeros(2), np.zeros(2, dtype=np.int64), [])
