"""Run the ingest job for namespaces of mnemo.yaml in the instance at $DAGSTER_HOME: `mnemo ingest`.

Usage: python scripts/run_ingest.py [NAMESPACE...]   (default: every namespace in mnemo.yaml)
Kept for scripts that call it; it takes the same arguments and options as `mnemo ingest`.
"""

import sys

from mnemo.cli.main import app

if __name__ == "__main__":
    app(["ingest", *sys.argv[1:]], prog_name="mnemo")
