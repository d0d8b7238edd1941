"""Loading the definitions (what every run Dagster launches does first) imports no LLM client, no
graph-clustering or plotting library, no vector store (LanceDB) and no MinHash library: a run that
needs none of them does not pay for them."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPTIONAL = ("openai", "instructor", "igraph", "leidenalg", "matplotlib", "lancedb", "datasketch")


def test_loading_the_definitions_imports_no_optional_heavy_library() -> None:
    code = f"import sys, definitions; print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
