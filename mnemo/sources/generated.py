"""Pages mnemo generates (mnemo/writeback/pages.py) carry a first property that marks them as its
own: `<key>-generated: true` in frontmatter (Obsidian) or `<key>-generated:: true` (Logseq). Such a
page is never read as the person's input."""

_BOM = b"\xef\xbb\xbf"


def generated_header(key: str, kind: str) -> str:
    """The lines a generated page starts with (the Obsidian frontmatter is closed here)."""
    return f"{key}-generated:: true\n" if kind == "logseq" else f"---\n{key}-generated: true\n---\n"


def is_generated(data: bytes, key: str = "mnemo") -> bool:
    """True when the file starts the way a page mnemo generated does."""
    head = data.removeprefix(_BOM)
    return head.startswith(generated_header(key, "logseq").encode()) or head.startswith(
        generated_header(key, "obsidian").encode()
    )
