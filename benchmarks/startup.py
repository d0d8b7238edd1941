"""Start-up of the `mnemo` command: whole processes, as a person runs them, timed from launch to
exit; the median of `--repeat` runs of each command, beside `python -c pass` in the same run.

    .venv/bin/python -m benchmarks.startup --config WORKSPACE/mnemo.yaml \
        --tree before=/work/wt-before56 --tree after=. --out benchmarks/results/startup-DATE.txt

Each `--tree` is a checkout of mnemo run through the same interpreter (PYTHONPATH points at it);
the commands of every tree are interleaved, so a busy machine weighs on each alike. `--config`
names an ingested workspace (status and recall read it; remember writes one memory a pass), whose
folder (with its data inside it: a relative `data_dir`) each tree gets a copy of.
`remember → recall` is two CLI calls, one after the other: the memory is recalled by the second.
`recall, warm` is the same query asked a second time in one process (what a long-running process
such as `mnemo serve` or the MCP server answers in), for comparison with a whole process;
`remember → recall, warm` the pair asked of one process that has answered once already.
`each command --help, max` is the slowest median of every command's and subcommand's `--help`.

Each tree is run once before timing with bytecode writing on (an installed package has its `.pyc`
files; a checkout run with PYTHONDONTWRITEBYTECODE would compile every module each time).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

QUERY = "how do I embed a block from another page"
WARM = """
import sys, time
from mnemo.client import MemoryClient
client = MemoryClient(sys.argv[1], sys.argv[2])
client.recall(sys.argv[3])
started = time.perf_counter()
client.recall(sys.argv[3])
print(time.perf_counter() - started)
"""


WARM_PAIR = """
import sys, time, uuid
from mnemo.client import MemoryClient
client = MemoryClient(sys.argv[1], sys.argv[2])
client.recall(sys.argv[3])
word = "heron" + uuid.uuid4().hex[:8]
started = time.perf_counter()
client.remember(f"the spare key {word} is under the blue pot")
found = client.recall(f"spare key {word}")
seconds = time.perf_counter() - started
assert any(word in item.text for item in found.items), "the remembered memory was not recalled"
print(seconds)
"""
HELPS = """
import click
from typer.core import TyperGroup
from typer.main import get_command
from mnemo.cli.main import app

def words(group, before):
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        print(" ".join([*before, name]))
        if isinstance(command, TyperGroup):
            words(command, [*before, name])

words(get_command(app), [])
"""


def _mnemo() -> str:
    return str(Path(sys.executable).parent / "mnemo")


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} exited {done.returncode}: {done.stdout[-500:]}")
    return seconds


def _remember_then_recall(env: dict[str, str], namespace: str) -> float:
    word = f"heron{uuid.uuid4().hex[:8]}"
    first = _timed([_mnemo(), "remember", f"the spare key {word} is under the blue pot", "-n", namespace], env)
    started = time.perf_counter()
    found = subprocess.run([_mnemo(), "recall", f"spare key {word}", "-n", namespace, "--json"], env=env,
                           capture_output=True, text=True, check=False)
    if word not in found.stdout:
        raise SystemExit(f"the remembered memory was not recalled: {found.stdout[-300:]} {found.stderr[-300:]}")
    return first + time.perf_counter() - started


def _warm(env: dict[str, str], namespace: str, config: str, code: str) -> float:
    done = subprocess.run([sys.executable, "-c", code, namespace, config, QUERY], env=env,
                          capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def _helps(env: dict[str, str]) -> list[str]:
    """Every command and subcommand of `mnemo`, as the words that name it."""
    done = subprocess.run([sys.executable, "-c", HELPS], env=env, capture_output=True, text=True, check=True)
    return done.stdout.split("\n")[:-1]


def _cases(namespace: str, helps: list[str]) -> dict[str, list[str] | None]:
    """name -> argv (None: measured by its own function)."""
    mnemo = _mnemo()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "mnemo --help": [mnemo, "--help"],
        **{f"mnemo {words} --help": [mnemo, *words.split(), "--help"] for words in helps},
        "mnemo status": [mnemo, "status", "-n", namespace],
        "mnemo recall": [mnemo, "recall", QUERY, "-n", namespace],
        "remember → recall (2 calls)": None,
        "recall, warm (2nd in 1 process)": None,
        "remember → recall, warm (1 process)": None,
    }


def _copied(config: Path, folder: Path) -> Path:
    """The workspace (the config file's folder, its data inside it) copied to `folder`: its config."""
    shutil.copytree(config.parent, folder, symlinks=True)
    return folder / config.name


def _environment(path: Path, config: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(path), "MNEMO_CONFIG": str(config),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _once(case: str, argv: list[str] | None, env: dict[str, str], namespace: str, config: Path) -> float:
    if argv is not None:
        return _timed(argv, env)
    if case.startswith("remember → recall (2"):
        return _remember_then_recall(env, namespace)
    return _warm(env, namespace, str(config), WARM_PAIR if case.startswith("remember") else WARM)


def measure(trees: dict[str, Path], configs: dict[str, Path], namespace: str, repeat: int,
            helps: list[str]) -> dict[str, dict[str, float]]:
    """Medians per case and tree; each tree works on its own copy of the workspace (`configs`), so
    what one tree writes (remember) never stales what the other keeps."""
    cases = _cases(namespace, helps)
    times: dict[str, dict[str, list[float]]] = {case: {tree: [] for tree in trees} for case in cases}
    for tree, path in trees.items():  # the .pyc files written, the files in the page cache
        for case in ("mnemo --help", "mnemo status", "mnemo recall"):
            _timed(cases[case] or [], _environment(path, configs[tree]))
    for _ in range(repeat):
        for case, argv in cases.items():
            for tree, path in trees.items():
                env = _environment(path, configs[tree])
                times[case][tree].append(_once(case, argv, env, namespace, configs[tree]))
    return {case: {tree: statistics.median(found) for tree, found in by_tree.items()}
            for case, by_tree in times.items()}


def summary(medians: dict[str, dict[str, float]], trees: list[str]) -> dict[str, dict[str, float]]:
    """The commands' `--help` other than the top one folded into their slowest, per tree."""
    helps = [case for case in medians if case.endswith(" --help") and case != "mnemo --help"]
    if not helps:
        return medians
    kept = {case: by_tree for case, by_tree in medians.items() if case not in helps}
    slowest = {tree: max(medians[case][tree] for case in helps) for tree in trees}
    ordered = list(kept.items())
    ordered.insert(2, (f"each command --help, max (of {len(helps)})", slowest))
    return dict(ordered)


def table(medians: dict[str, dict[str, float]], trees: list[str], repeat: int) -> str:
    """Seconds per tree, and each as a multiple of `python -c pass` in the same tree's runs."""
    base = medians["python -c pass"]
    lines = [f"{'command':40}" + "".join(f"{tree:>10}{'× pass':>9}" for tree in trees) + "   (median of "
             f"{repeat} whole processes, seconds)"]
    for case, by_tree in medians.items():
        lines.append(f"{case:40}" + "".join(f"{by_tree[tree]:10.2f}{by_tree[tree] / base[tree]:9.1f}"
                                            for tree in trees))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True, help="An ingested workspace's mnemo.yaml.")
    parser.add_argument("--namespace", default="me")
    parser.add_argument("--tree", action="append", required=True, metavar="NAME=PATH", help="A checkout to measure.")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--every-help", action="store_true", help="Also every command's --help (reported as the max).")
    parser.add_argument("--out", type=Path, help="Also write the table here.")
    args = parser.parse_args()
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.tree)}
    with open("/proc/loadavg", encoding="utf-8") as load:
        before = load.read().split()[0]
    first = next(iter(trees.values()))
    helps = _helps(_environment(first, args.config.resolve())) if args.every_help else ["recall"]
    with tempfile.TemporaryDirectory(prefix="startup-") as copies:
        configs = {tree: _copied(args.config.resolve(), Path(copies) / tree) for tree in trees}
        medians = summary(measure(trees, configs, args.namespace, args.repeat, helps), list(trees))
    with open("/proc/loadavg", encoding="utf-8") as load:
        after = load.read().split()[0]
    text = table(medians, list(trees), args.repeat) + f"\nload average (1 min) at start {before}, at end {after}; " \
        f"{os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
