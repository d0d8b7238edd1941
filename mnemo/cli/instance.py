"""The project's Dagster instance folder, as `mnemo ingest` and `mnemo up` use it (no Dagster import)."""

import os
from pathlib import Path


def instance_settings() -> Path:
    """The project's instance settings (run queue limits, pools, run monitoring): the `dagster.yaml`
    installed with the package `mnemo_dagster`, in a checkout and in site-packages alike."""
    from mnemo_dagster import INSTANCE_SETTINGS  # a data file's path; the package imports no Dagster

    return INSTANCE_SETTINGS


def dagster_home(config_path: Path) -> Path:
    """$DAGSTER_HOME, else `.dagster` beside the config file; the project's dagster.yaml is linked
    in when the folder has none, or has a link whose target is gone (as `make demo` does).
    Sets $DAGSTER_HOME for what runs after."""
    home = Path(os.environ.get("DAGSTER_HOME") or config_path.parent / ".dagster").resolve()
    home.mkdir(parents=True, exist_ok=True)
    settings = home / "dagster.yaml"
    if settings.is_symlink() and not settings.exists():
        settings.unlink()  # linked to a checkout or an install that is no longer there
    if not settings.exists():
        settings.symlink_to(instance_settings())
    os.environ["DAGSTER_HOME"] = str(home)
    return home
