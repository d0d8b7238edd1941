"""mnemo's Dagster shell under one installed name: `mnemo_dagster.definitions` (the code location),
`.assets`, `.resources`, `.sensors`, `.jobs`, `.shards` and the instance settings `dagster.yaml`.

The repository keeps them at its top (definitions.py, assets/, ... dagster.yaml); this folder links
to them, so a checkout, an editable install and a built wheel import the same module names, and
nothing is installed under a generic top-level name such as `assets` or `jobs`."""

from pathlib import Path

INSTANCE_SETTINGS = Path(__file__).with_name("dagster.yaml")
