"""Obsidian vaults: one Markdown file is one Document (of an Excalidraw drawing, its text)."""

import datetime as dt
import json
import re
from pathlib import Path

from mnemo.documents import Document, content_hash
from mnemo.sources.daily_notes import DailyNotes
from mnemo.sources.excalidraw import drawing_text, is_drawing
from mnemo.sources.markdown import (
    as_strings,
    body_links,
    inline_tags,
    property_links,
    prose,
    split_frontmatter,
    tag_list,
)

DAILY_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
ALWAYS_EXCLUDED = (".obsidian", ".trash", ".git")
SUFFIXES = (".md",)
# Frontmatter keys that date a note, compared without case and with `_` / `-` read as spaces.
_DATE_KEYS = ("created", "date", "created at", "date created", "creation date")


def templates_folder(root: Path) -> str | None:
    """The templates folder named in the vault's `.obsidian/templates.json`, if any."""
    settings = root / ".obsidian" / "templates.json"
    try:
        folder = json.loads(settings.read_text(encoding="utf-8")).get("folder")
    except (OSError, ValueError, AttributeError):
        return None
    return folder.strip("/") if isinstance(folder, str) and folder.strip("/") else None


def default_excludes(root: Path) -> tuple[str, ...]:
    """Folders a person does not want remembered: Obsidian's own, the trash, templates."""
    templates = templates_folder(root)
    return ALWAYS_EXCLUDED + ((templates,) if templates else ())


def journal_day(stem: str) -> str | None:
    match = DAILY_NAME.match(stem)
    if not match:
        return None
    try:
        return dt.date(*map(int, match.groups())).isoformat()
    except ValueError:
        return None


def _first_date(properties: dict[str, object]) -> str | None:
    by_key = {re.sub(r"[\s_-]+", " ", key.strip().lower()): value for key, value in properties.items()}
    for key in _DATE_KEYS:
        for value in as_strings(by_key.get(key)):
            if re.match(r"^\d{4}-\d{2}-\d{2}", value):
                return value[:10]
    return None


def parse_note(
    text: str, *, namespace: str, source: str, rel_path: str, modified: str | None, daily: DailyNotes | None = None,
) -> Document:
    """Parse one note's text. Broken frontmatter is recorded in `problems`; the body is kept. A note is a
    journal page when its name is a `YYYY-MM-DD` date or when it is a daily note in the vault's own
    format and folder (`daily`)."""
    meta = split_frontmatter(text.removeprefix("\ufeff"))
    properties = meta.properties
    stem = Path(rel_path).stem
    body = drawing_text(meta.body) if is_drawing(rel_path, properties) else meta.body
    body_prose = prose(body)
    tags = list(
        dict.fromkeys(tag_list(properties.get("tags")) + tag_list(properties.get("tag")) + inline_tags(body_prose))
    )
    aliases = as_strings(properties.get("aliases")) + as_strings(properties.get("alias"))
    title_prop = properties.get("title")
    if isinstance(title_prop, str) and title_prop.strip() and title_prop.strip() != stem:
        aliases.append(title_prop.strip())
    day = (daily.day_of(rel_path) if daily else None) or journal_day(stem)
    return Document(
        id="doc_" + content_hash(namespace, source, rel_path),
        namespace=namespace,
        source=source,
        path=rel_path,
        title=stem,
        kind="journal" if day else "note",
        body=body,
        content_hash=content_hash(text),
        aliases=list(dict.fromkeys(a for a in aliases if a != stem)),
        tags=tags,
        properties=properties,
        links=property_links(properties) + body_links(body_prose),
        created=day or _first_date(properties),
        modified=modified,
        day=day,
        problems=[meta.problem] if meta.problem else [],
    )
