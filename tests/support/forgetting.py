"""Killing a forget: a namespace prepared once and cloned per run, and a forget run in a child
process that SIGKILLs itself at a named write point (`MNEMO_FAULT=NAME@N:kill`)."""

import multiprocessing
import os
import shutil
from pathlib import Path

import yaml

from mnemo.client import MemoryClient
from mnemo.stores import faults


def clone(prepared: Path, root: Path) -> Path:
    """A copy of a prepared setup (config, data, vault) at `root`; its config path."""
    shutil.copytree(prepared, root, symlinks=True)
    config_path = root / "mnemo.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["data_dir"] = str(root / "data")
    for sources in config["namespaces"].values():
        for source in sources["sources"]:
            source["path"] = str(root / Path(source["path"]).relative_to(prepared))
    config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return config_path


def forget_in_child(config_path: str, request: dict[str, str], fault: str) -> None:
    """The body of a child process: one forget (`request`: memory= or entity=), with $MNEMO_FAULT set."""
    os.environ[faults.FAULT_ENV] = fault
    MemoryClient("test", config_path).forget(**request)


def kill_forget(config_path: Path, request: dict[str, str], fault: str) -> int | None:
    """Run the forget in a fresh process forked from a server that has imported mnemo; its exit code
    (-9 when the fault point killed it)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["tests.support.forgetting"])
    child = context.Process(target=forget_in_child, args=(str(config_path), request, fault))
    child.start()
    child.join()
    return child.exitcode
