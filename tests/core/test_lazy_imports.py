"""Loading the definitions (what every run Dagster launches does first) imports no LLM client, no
graph-clustering or plotting library, no vector store (LanceDB) and no MinHash library: a run that
needs none of them does not pay for them; and LanceDB, once a run needs it, is imported without
the API modules of a REST client it never uses."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support import REPO

ROOT = REPO
OPTIONAL = ("openai", "instructor", "igraph", "leidenalg", "matplotlib", "lancedb", "datasketch")


def test_loading_the_definitions_imports_no_optional_heavy_library() -> None:
    code = f"import sys, mnemo_dagster.definitions; print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_lancedb_loads_without_the_namespace_clients_api_modules_and_works(tmp_path: Path) -> None:
    """In a fresh interpreter: LanceDB imported by mnemo writes and reads a table without the
    REST client's API modules; a name of the client's package still loads them."""
    script = textwrap.dedent(f"""
        import json, sys
        from mnemo.stores.vectors import import_lancedb
        api = lambda: sorted(m for m in sys.modules if m.startswith("lance_namespace_urllib3_client.api."))
        db = import_lancedb().connect({str(tmp_path / "vectors")!r})
        table = db.create_table("t", data=[{{"id": "a", "vector": [0.1, 0.2]}}, {{"id": "b", "vector": [0.3, 0.4]}}])
        rows = table.search([0.1, 0.2]).limit(1).to_list()
        before = api()
        from lance_namespace_urllib3_client import ApiClient
        print(json.dumps({{"nearest": rows[0]["id"], "count": db.open_table("t").count_rows(), "before": before,
                          "after": len(api()), "client": ApiClient.__name__}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["nearest"] == "a" and seen["count"] == 2
    assert seen["before"] == []
    assert seen["after"] > 0 and seen["client"] == "ApiClient"
