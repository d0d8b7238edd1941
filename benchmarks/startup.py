"""Start-up of the `mnemo` command: whole processes, as a person runs them, timed from launch to
exit; the median of `--repeat` runs of each command, beside `python -c pass` in the same run.

    .venv/bin/python -m benchmarks.startup --config WORKSPACE/mnemo.yaml \
        --tree before=/work/wt-before56 --tree after=. --out benchmarks/results/startup-DATE.txt

Each `--tree` is a checkout of mnemo run through the same interpreter (PYTHONPATH points at it);
the commands of every tree are interleaved, so a busy machine weighs on each alike. `--config`
names an ingested workspace (status and recall read it; remember writes one memory a pass).
`remember → recall` is two CLI calls, one after the other: the memory is recalled by the second.
`recall, warm` is the same query asked a second time in one process (what a long-running process
such as `mnemo serve` or the MCP server answers in), for comparison with a whole process.
"""

import argparse
import os
import statistics
import subprocess
import sys
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


def _warm(env: dict[str, str], namespace: str, config: str) -> float:
    done = subprocess.run([sys.executable, "-c", WARM, namespace, config, QUERY], env=env,
                          capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def _cases(namespace: str) -> dict[str, list[str] | None]:
    """name -> argv (None: measured by its own function)."""
    mnemo = _mnemo()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "mnemo --help": [mnemo, "--help"],
        "mnemo recall --help": [mnemo, "recall", "--help"],
        "mnemo status": [mnemo, "status", "-n", namespace],
        "mnemo recall": [mnemo, "recall", QUERY, "-n", namespace],
        "remember → recall (2 calls)": None,
        "recall, warm (2nd in 1 process)": None,
    }


def measure(trees: dict[str, Path], config: Path, namespace: str, repeat: int) -> dict[str, dict[str, float]]:
    cases = _cases(namespace)
    times: dict[str, dict[str, list[float]]] = {case: {tree: [] for tree in trees} for case in cases}
    for _ in range(repeat):
        for case, argv in cases.items():
            for tree, path in trees.items():
                env = {**os.environ, "PYTHONPATH": str(path), "MNEMO_CONFIG": str(config),
                       "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
                if argv is not None:
                    seconds = _timed(argv, env)
                elif case.startswith("remember"):
                    seconds = _remember_then_recall(env, namespace)
                else:
                    seconds = _warm(env, namespace, str(config))
                times[case][tree].append(seconds)
    return {case: {tree: statistics.median(found) for tree, found in by_tree.items()}
            for case, by_tree in times.items()}


def table(medians: dict[str, dict[str, float]], trees: list[str], repeat: int) -> str:
    lines = [f"{'command':34}" + "".join(f"{tree:>12}" for tree in trees) + "   (median of "
             f"{repeat} whole processes, seconds)"]
    for case, by_tree in medians.items():
        lines.append(f"{case:34}" + "".join(f"{by_tree[tree]:12.2f}" for tree in trees))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True, help="An ingested workspace's mnemo.yaml.")
    parser.add_argument("--namespace", default="me")
    parser.add_argument("--tree", action="append", required=True, metavar="NAME=PATH", help="A checkout to measure.")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="Also write the table here.")
    args = parser.parse_args()
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.tree)}
    with open("/proc/loadavg", encoding="utf-8") as load:
        before = load.read().split()[0]
    medians = measure(trees, args.config.resolve(), args.namespace, args.repeat)
    with open("/proc/loadavg", encoding="utf-8") as load:
        after = load.read().split()[0]
    text = table(medians, list(trees), args.repeat) + f"\nload average (1 min) at start {before}, at end {after}; " \
        f"{os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
