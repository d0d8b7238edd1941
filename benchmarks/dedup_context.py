"""What the pipeline knows of a name in a real vault, for the dedup evaluation.

A vault is read with mnemo's own readers. Every link and tag is a reference from the page
that holds it to a target, resolved the way the structural extractor resolves it (title,
path, last path segment, alias). A page's record has its title, its aliases, the display
texts of links to it, and as neighbours the pages it links to and the pages that link to it.

A labeled positive pair (page P, name N) stands for the duplicate the pipeline would see if
N had not been resolved to P: an entity named N whose neighbours are the pages that link to
N by that name, and P without anything that comes from N (N is not among its aliases nor its
display texts, and the references made through N are not P's). The label is never an input.
"""

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from mnemo.config import SourceConfig, SourceKind
from mnemo.documents import Document, normalize_name
from mnemo.extract.structural import NoteIndex
from mnemo.sleep.dedup import EntityRecord
from mnemo.sources.scan import scan_namespace


@dataclass(frozen=True)
class Reference:
    source: str  # the referring page's key
    said: str  # the normalized name the reference used
    target: str  # the resolved page's key, or the normalized name when nothing resolves
    display: str | None


def _key(doc: Document) -> str:
    return doc.title.lower()


class CorpusContext:
    """Pages and references of one vault, and records built from them."""

    def __init__(self, kind: SourceKind, path: Path) -> None:
        docs = scan_namespace("eval", (SourceConfig(kind=kind, path=path),), [], []).documents
        self.pages = {_key(d): d for d in docs}
        for doc in docs:  # the file name, as the labeled set names pages
            self.pages.setdefault(unquote(Path(doc.path).stem).replace("___", "/").lower(), doc)
        index = NoteIndex(docs)
        self.references: list[Reference] = []
        for doc in docs:
            targets = [(link.target, link.display) for link in doc.links] + [(tag, None) for tag in doc.tags]
            for target, display in targets:
                found = index.find(target)
                self.references.append(Reference(_key(doc), normalize_name(target),
                                                 _key(found) if found else normalize_name(target), display))
        self.outgoing: dict[str, set[str]] = defaultdict(set)
        self.incoming: dict[str, list[Reference]] = defaultdict(list)
        self.by_name: dict[str, set[str]] = defaultdict(set)
        for ref in self.references:
            if ref.source != ref.target:
                self.outgoing[ref.source].add(ref.target)
                self.incoming[ref.target].append(ref)
            self.by_name[ref.said].add(ref.source)

    def page_name(self, name: str) -> str | None:
        return self.pages[name.lower()].title if name.lower() in self.pages else None

    def referenced_as(self, name: str) -> bool:
        """Whether some page links to (or tags) this name: only then can an entity of that name arise."""
        return bool(self.by_name.get(normalize_name(name)))

    def page_record(self, title: str, without: str = "") -> EntityRecord:
        """A page's entity as the pipeline sees it, minus everything that comes from the name `without`."""
        doc, gone = self.pages[title.lower()], normalize_name(without)
        refs = [r for r in self.incoming[_key(doc)] if not gone or r.said != gone]
        displays = {r.display for r in refs if r.display and normalize_name(r.display) != gone}
        aliases = tuple(a for a in doc.aliases if normalize_name(a) != gone)
        neighbours = self.outgoing[_key(doc)] | {r.source for r in refs}
        return EntityRecord(_key(doc), "concept", doc.title, aliases, frozenset(neighbours - {_key(doc)}), frozenset(displays),
                            has_page=True)

    def name_record(self, name: str) -> EntityRecord:
        """The entity a name that resolves to no page would be: its neighbours are the pages that link to it."""
        return EntityRecord("name:" + normalize_name(name), "concept", name, (), frozenset(self.by_name.get(normalize_name(name), set())))

    def records(self, a: str, b: str) -> tuple[EntityRecord, EntityRecord]:
        """Two pages, or a page and a name that is no page (split off the page as described above)."""
        if self.page_name(b) is None:
            return self.page_record(a, without=b), self.name_record(b)
        return self.page_record(a), self.page_record(b)

    def unresolved_names(self) -> list[str]:
        """Link targets that resolve to no page: the names of link-implied entities."""
        return sorted({r.target for r in self.references if r.target not in self.pages})
