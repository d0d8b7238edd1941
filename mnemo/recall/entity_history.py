"""An entity's properties over time, from the notes that are its page (a vault note, and one
small page per memory that set its properties), each dated by when it was written."""

import json
from typing import Any

from mnemo.extract.structural import plain_properties
from mnemo.sources.markdown import property_links
from ontology import Ontology


def page_observations(rows: list[dict[str, Any]], ontology: Ontology) -> list[tuple[str, dict[str, Any]]]:
    """(date, own properties) of each page note, oldest first (`rows`: the notes' `properties`
    JSON, `created` and `day`)."""
    pages = []
    for row in rows:
        properties = json.loads(row.get("properties") or "{}")
        linked = {link.property for link in property_links(properties) if link.property}
        pages.append((row.get("created") or row.get("day") or "", plain_properties(properties, linked, ontology)))
    return sorted(pages, key=lambda page: page[0])


def property_history(current: dict[str, Any], pages: list[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per property the graph holds (`current`: a forgotten property is not there): its
    latest value, since when that value has held, and every value it had before (each with
    the date it was first said); the graph's value when no dated page mentions it."""
    out: dict[str, dict[str, Any]] = {}
    for key in current:
        history: list[dict[str, Any]] = []
        for date, props in pages:
            if key in props and (not history or history[-1]["value"] != props[key]):
                history.append({"value": props[key], "since": date})
        if not history:
            history = [{"value": current[key], "since": ""}]
        out[key] = {"value": history[-1]["value"], "since": history[-1]["since"], "history": history}
    return out
