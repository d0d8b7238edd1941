"""The generated pages of a namespace, per note source: what they should say now, compared with
what mnemo's folder holds (page_files). Community pages are named once for the namespace, so a
note's `mnemo-community` link and the page agree."""

from mnemo.config import SourceConfig
from mnemo.writeback.link_names import LinkNames
from mnemo.writeback.page_files import PagePlan, plan_pages
from mnemo.writeback.pages import (
    Page,
    PageFacts,
    community_names,
    community_pages,
    page_path,
    period_pages,
    profile_page,
    render,
)


def source_pages(facts: PageFacts, source: SourceConfig, links: LinkNames, folder: str) -> list[Page]:
    """The pages for one source, links resolved among that source's notes."""
    def note_link(note_id: str) -> str | None:
        ref = facts.notes.get(note_id)
        return links.name(ref) if ref is not None and ref.source == source.label else None

    def entity(eid: str) -> tuple[str, str | None]:
        return facts.entities.get(eid, (eid, None))

    def day_link(day: str) -> str | None:
        link = links.days.link(day)
        return link[2:-2] if link else None

    names = community_names(facts, folder)
    return [
        *community_pages(facts, names, note_link, entity),
        *period_pages(facts, folder, note_link, day_link),
        *profile_page(facts, folder, note_link, entity),
    ]


def plan_source_pages(
    facts: PageFacts, source: SourceConfig, links: LinkNames, folder: str, key: str,
) -> PagePlan:
    pages = source_pages(facts, source, links, folder)
    wanted = {page_path(p.name, source.kind): render(p, source.kind, key) for p in pages}
    return plan_pages(source.label, source.path, source.kind, folder, wanted, key)
