"""`mnemo extraction`: what the LLM extractor has cached and which chunks are pending."""

import json
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from rich.console import Console

from mnemo.cli.tables import fitting_table

if TYPE_CHECKING:
    from mnemo.config import MnemoConfig


def extraction_state(settings: "MnemoConfig", namespace: str) -> dict[str, Any]:
    """Cached answers per (model, ontology version, prompt version) and the pending chunks."""
    from mnemo.extract.llm_cache import ExtractionCache  # polars loads with the command, not with --help
    from mnemo.stores.files import NamespaceFiles

    cache = ExtractionCache(NamespaceFiles(settings.data_root(namespace), namespace).root / "llm")
    versions = Counter((e.model, e.ontology_version, e.prompt_version) for e in cache.entries.values())
    return {
        "namespace": namespace,
        "configured": settings.llm is not None,
        "model": settings.llm.model if settings.llm else None,
        "cached": [
            {"model": m, "ontology_version": o, "prompt_version": p, "answers": n}
            for (m, o, p), n in sorted(versions.items())
        ],
        "dropped_items": sum(e.dropped for e in cache.entries.values()),
        "pending": cache.read_pending(),
    }


def print_extraction_state(state: dict[str, Any], as_json: bool, console: Console) -> None:
    if as_json:
        json.dump(state, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return
    configured = f"model {state['model']!r}" if state["configured"] else "no llm configured (structural only)"
    console.print(f"namespace [bold]{state['namespace']}[/]: {configured}")
    rows = [[r["model"], r["ontology_version"], r["prompt_version"], str(r["answers"])] for r in state["cached"]]
    console.print(fitting_table("cached LLM answers", ["model", "ontology version", "prompt version", "answers"], rows))
    console.print(f"{len(state['pending'])} pending chunks, {state['dropped_items']} invalid items dropped")
    for item in state["pending"]:
        console.print(f"[yellow]{item['path']}[/] {item['chunk_id']}: {item['reason']}")
