"""Page properties of Logseq pages, patched surgically.

Logseq keeps a page's properties as `key:: value` lines at the very top of the file. mnemo
writes its insights there as `mnemo-<name>:: value` lines kept together: they replace the
previous mnemo lines, or follow the page's own properties, or go at the very top of a page
that has none (nothing else is added: no blank line). Every other character stays as it was.
A page that starts with YAML frontmatter is patched there instead (see patch_frontmatter).
"""


from mnemo.errors import WritebackRefused
from mnemo.sources.logseq_properties import (
    blank_after,
    prefixed_indexes,
    property_lines,
)
from mnemo.sources.note_layout import BOM, newline_of
from mnemo.writeback.frontmatter import OptedOut, Patch


def one_line(value: str) -> str:
    """A property value on one line: every run of whitespace (line breaks too) becomes a space."""
    return " ".join(value.split())


def render_lines(prefix: str, values: dict[str, str], newline: str) -> list[str]:
    return [f"{prefix}-{name}:: {one_line(value)}".rstrip() + newline for name, value in values.items()]


def logseq_patch(
    text: str, prefix: str, values: dict[str, str], ignore: str = "updated", drop_blank: bool = False,
) -> Patch | None:
    """The patch that writes `values` as `<prefix>-<name>::` page properties, or None.

    `drop_blank`: mnemo's lines are the page's only properties and an earlier write-back put a blank
    line after them; that line goes too.
    """
    props = property_lines(text)
    if any(p.key == prefix and p.value.lower() == "false" for p in props):
        raise OptedOut(f"the page opts out ({prefix}:: false)")
    newline = newline_of(text)
    lines = render_lines(prefix, values, newline)
    ours = prefixed_indexes(props, prefix)
    if ours:
        first, last = props[ours[0]], props[ours[-1]]
        end = last.offset + len(last.line)
        blank = blank_after(text, end) if drop_blank and len(ours) == len(props) else 0
        current = {props[i].key: props[i].value for i in ours}
        wanted = {f"{prefix}-{k}": one_line(v) for k, v in values.items()}
        skip = f"{prefix}-{ignore}"
        same = {k: v for k, v in current.items() if k != skip} == {k: v for k, v in wanted.items() if k != skip}
        if same and not blank:
            return None
        old = text[first.offset:end + blank]
        patch = Patch(first.offset, old, _joined(lines, old.endswith("\n")))
    elif props:
        last = props[-1]
        end = last.offset + len(last.line)
        block = "".join(lines)
        patch = Patch(end, "", block if last.line.endswith("\n") else newline + block.removesuffix(newline))
    else:
        patch = Patch(len(BOM) if text.startswith(BOM) else 0, "", "".join(lines))
    verify(text, patch, prefix, values)
    return patch


def _joined(lines: list[str], trailing_newline: bool) -> str:
    block = "".join(lines)
    return block if trailing_newline else block.rstrip("\r\n")


def verify(text: str, patch: Patch, prefix: str, values: dict[str, str]) -> None:
    """Re-read the patched page: the other properties unchanged, ours exactly as intended."""
    new_text = patch.apply(text)
    before = [(p.key, p.line.rstrip("\r\n")) for p in property_lines(text) if not p.key.startswith(prefix + "-")]
    props = property_lines(new_text)
    after = [(p.key, p.line.rstrip("\r\n")) for p in props if not p.key.startswith(prefix + "-")]
    if before != after:
        raise WritebackRefused("re-reading the patched page does not give back its other properties unchanged")
    ours = {props[i].key: props[i].value for i in prefixed_indexes(props, prefix)}
    if ours != {f"{prefix}-{k}": one_line(v) for k, v in values.items()}:
        raise WritebackRefused("the written properties cannot be read back from the patched page")


