"""Load ontology.yaml into typed objects: type lookups, relation rules, pydantic models."""

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from mnemo.errors import OntologyError

DEFAULT_PATH = Path(__file__).with_name("ontology.yaml")
RELATION_CLASSES = ("hierarchical", "temporal", "semantic")
ANY = "*"


@dataclass(frozen=True)
class EntityType:
    name: str
    description: str
    synonyms: tuple[str, ...]


@dataclass(frozen=True)
class RelationType:
    name: str
    description: str
    relation_class: str
    domain: tuple[str, ...]
    range: tuple[str, ...]
    keys: tuple[str, ...]

    @property
    def table(self) -> str:
        """The graph table name of this relation (upper case, as Cypher convention has it)."""
        return self.name.upper()

    def allows(self, source_kind: str, target_kind: str) -> bool:
        return (ANY in self.domain or source_kind in self.domain) and (
            ANY in self.range or target_kind in self.range
        )


@dataclass(frozen=True)
class Ontology:
    version: str
    entity_types: dict[str, EntityType]
    relation_types: dict[str, RelationType]
    structural_types: dict[str, str]
    type_keys: tuple[str, ...]
    type_tags: bool
    default_type: str | None = None
    path: str = field(default="", compare=False)

    @cached_property
    def _synonyms(self) -> dict[str, str]:
        return {syn: t.name for t in self.entity_types.values() for syn in (t.name, *t.synonyms)}

    @cached_property
    def _keys(self) -> dict[str, RelationType]:
        return {key: rel for rel in self.relation_types.values() for key in rel.keys}

    def entity_type_for(self, value: str) -> str | None:
        """The entity type a frontmatter value or tag names (`People`, `[[People]]`, `person`)."""
        cleaned = value.strip().strip("[]").split("|")[0].strip().lower()
        return self._synonyms.get(cleaned)

    def relation_for_key(self, key: str) -> RelationType | None:
        return self._keys.get(key.strip().lower())

    def relation(self, name: str) -> RelationType:
        try:
            return self.relation_types[name]
        except KeyError:
            raise OntologyError(f"unknown relation type {name!r}") from None

    @property
    def generic_relation(self) -> RelationType:
        return self.relation_types["related_to"]

    def check(self, relation: str, source_kind: str, target_kind: str) -> str | None:
        """Return why the relation violates domain/range, or None when it conforms."""
        rel = self.relation_types.get(relation)
        if rel is None:
            return f"unknown relation type {relation!r}"
        if not rel.allows(source_kind, target_kind):
            return (
                f"{relation} does not allow {source_kind} -> {target_kind} "
                f"(domain {list(rel.domain)}, range {list(rel.range)})"
            )
        return None

    def extraction_model(self) -> type[BaseModel]:
        """A pydantic response model whose closed type sets and descriptions come from here."""
        from ontology.extraction import build_extraction_model

        return build_extraction_model(self)

    def snapshot(self) -> dict[str, Any]:
        """The parts of the ontology an extraction depends on, as plain data (for diffs)."""
        return {
            "version": self.version,
            "entity_types": {t.name: t.description for t in self.entity_types.values()},
            "relation_types": {
                r.name: {"description": r.description, "domain": list(r.domain), "range": list(r.range)}
                for r in self.relation_types.values()
            },
        }


def _require(data: dict[str, Any], key: str, where: str, kind: type) -> Any:
    if key not in data:
        raise OntologyError(f"{where}: missing required key {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise OntologyError(f"{where}.{key}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _names(values: Any, where: str) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise OntologyError(f"{where}: expected a list of strings")
    return tuple(v.strip().lower() for v in values)


def parse_ontology(data: Any, path: str = "<ontology>") -> Ontology:
    if not isinstance(data, dict):
        raise OntologyError(f"{path}: the top level must be a mapping")
    version = str(_require(data, "version", path, (str, int, float)))  # type: ignore[arg-type]
    entity_types: dict[str, EntityType] = {}
    for name, spec in _require(data, "entity_types", path, dict).items():
        where = f"{path}: entity_types.{name}"
        if not isinstance(spec, dict):
            raise OntologyError(f"{where}: expected a mapping")
        entity_types[name] = EntityType(
            name, _require(spec, "description", where, str), _names(spec.get("synonyms", []), f"{where}.synonyms")
        )
    relation_types: dict[str, RelationType] = {}
    for name, spec in _require(data, "relation_types", path, dict).items():
        where = f"{path}: relation_types.{name}"
        if not isinstance(spec, dict):
            raise OntologyError(f"{where}: expected a mapping")
        rel_class = _require(spec, "class", where, str)
        if rel_class not in RELATION_CLASSES:
            raise OntologyError(f"{where}.class: {rel_class!r} is not one of {list(RELATION_CLASSES)}")
        domain = _names(_require(spec, "domain", where, list), f"{where}.domain")
        range_ = _names(_require(spec, "range", where, list), f"{where}.range")
        for kind in (*domain, *range_):
            if kind != ANY and kind not in entity_types:
                raise OntologyError(f"{where}: domain/range names unknown entity type {kind!r}")
        relation_types[name] = RelationType(
            name, _require(spec, "description", where, str), rel_class, domain, range_,
            _names(spec.get("keys", []), f"{where}.keys"),
        )
    if "related_to" not in relation_types:
        raise OntologyError(f"{path}: relation_types must define the generic 'related_to'")
    _reject_duplicates(entity_types, relation_types, path)
    structural = _require(data, "structural_types", path, dict)
    default_type = data.get("default_type")
    if default_type is not None and default_type not in entity_types:
        raise OntologyError(f"{path}: default_type names unknown entity type {default_type!r}")
    return Ontology(
        version=version,
        entity_types=entity_types,
        relation_types=relation_types,
        structural_types={k: str(v) for k, v in structural.items()},
        type_keys=_names(data.get("type_keys", ["type"]), f"{path}: type_keys"),
        type_tags=bool(data.get("type_tags", True)),
        default_type=default_type,
        path=path,
    )


def _reject_duplicates(
    entity_types: dict[str, EntityType], relation_types: dict[str, RelationType], path: str
) -> None:
    seen: dict[str, str] = {}
    for t in entity_types.values():
        for syn in (t.name, *t.synonyms):
            if seen.setdefault(syn, t.name) != t.name:
                raise OntologyError(f"{path}: synonym {syn!r} is claimed by {seen[syn]!r} and {t.name!r}")
    keys: dict[str, str] = {}
    for r in relation_types.values():
        for key in r.keys:
            if keys.setdefault(key, r.name) != r.name:
                raise OntologyError(f"{path}: property key {key!r} is claimed by {keys[key]!r} and {r.name!r}")


_LOADED: dict[Path, tuple[tuple[int, int, int], Ontology]] = {}


def load_ontology(path: str | Path | None = None) -> Ontology:
    """Read and validate an ontology file (the packaged one by default); parsed once per version
    of the file in a process."""
    file = Path(path) if path else DEFAULT_PATH
    try:
        stat = file.stat()
        version = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        if file in _LOADED and _LOADED[file][0] == version:
            return _LOADED[file][1]
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise OntologyError(f"{file}: cannot read ontology ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise OntologyError(f"{file}: invalid YAML: {exc}") from exc
    ontology = parse_ontology(data, str(file))
    _LOADED[file] = (version, ontology)
    return ontology
