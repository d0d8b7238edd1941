"""The project's Dagster instance folder, as `mnemo ingest` and `mnemo up` use it (no Dagster import)."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROJECT_INSTANCE = REPO / "dagster.yaml"


def dagster_home(config_path: Path) -> Path:
    """$DAGSTER_HOME, else `.dagster` beside the config file; the project's dagster.yaml is linked
    in when the folder has none (as `make demo` does). Sets $DAGSTER_HOME for what runs after."""
    home = Path(os.environ.get("DAGSTER_HOME") or config_path.parent / ".dagster").resolve()
    home.mkdir(parents=True, exist_ok=True)
    settings = home / "dagster.yaml"
    if not settings.exists() and not settings.is_symlink() and PROJECT_INSTANCE.is_file():
        settings.symlink_to(PROJECT_INSTANCE)
    os.environ["DAGSTER_HOME"] = str(home)
    return home
