"""Configuration and ontology files fail with messages that name the file and the problem."""

import os
from pathlib import Path

import pytest

from mnemo.config import ConfigFile, load_config
from mnemo.errors import ConfigError, OntologyError
from ontology import load_ontology, parse_ontology


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mnemo.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_relative_paths_are_resolved_against_the_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "data_dir: data\nnamespaces:\n  me:\n    sources:\n      - {kind: obsidian, path: vault}\n"))
    assert config.data_dir == tmp_path / "data"
    assert config.namespaces["me"].sources[0].path == tmp_path / "vault"
    assert config.embedder.kind == "minilm" and config.llm is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("namespaces:\n  Bad Name: {}\n", "invalid namespace name 'Bad Name'"),
        ("namespaces:\n  me:\n    sources:\n      - {kind: evernote, path: x}\n", "namespaces.me.sources.0.kind"),
        ("namespaces:\n  me:\n    sources:\n      - {kind: obsidian}\n", "namespaces.me.sources.0.path"),
        ("embedder: {kind: minilm, colour: red}\n", "embedder.colour"),
        ("llm: {model: x}\n", "llm.base_url"),
        ("data_dir: [unclosed\n", "invalid YAML"),
        ("- a list\n", "top level must be a mapping"),
    ],
)
def test_bad_config_messages(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, text))
    assert str(tmp_path / "mnemo.yaml") in str(error.value)
    assert expected in str(error.value)


def test_a_rewritten_config_is_read_again_even_with_the_same_size_and_time(tmp_path: Path) -> None:
    path = write(tmp_path, "data_dir: aa\n")
    held = ConfigFile(path)  # what a run's config resource holds
    first = held.load()
    assert held.load() is first  # parsed once while the text is the same
    stat = path.stat()
    path.write_text("data_dir: bb\n", encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert held.load().data_dir == tmp_path / "bb"
    path.write_text("data_dir: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid YAML"):
        held.load()


def test_missing_config_names_the_env_var(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MNEMO_CONFIG"):
        load_config(tmp_path / "nope.yaml")


def test_packaged_ontology_loads() -> None:
    ontology = load_ontology()
    assert {"person", "organization", "place", "project", "concept", "event", "artifact"} <= set(ontology.entity_types)
    assert {"note", "chunk", "day", "episode"} <= set(ontology.structural_types)
    assert ontology.entity_type_for("[[People]]") == "person"
    assert ontology.relation_for_key("works_at").name == "works_at"
    assert ontology.check("works_at", "person", "organization") is None
    assert "does not allow place -> organization" in ontology.check("works_at", "place", "organization")


BASE = {
    "version": "1",
    "structural_types": {"note": "n"},
    "entity_types": {"person": {"description": "p"}},
    "relation_types": {"related_to": {"description": "r", "class": "semantic", "domain": ["*"], "range": ["*"]}},
}


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ({"version": None}, "version: expected"),
        ({"relation_types": {"knows": {"description": "k", "class": "semantic", "domain": ["human"], "range": ["*"]}}}, "unknown entity type 'human'"),
        ({"relation_types": {"related_to": {"description": "r", "class": "vibes", "domain": ["*"], "range": ["*"]}}}, "'vibes' is not one of"),
        ({"relation_types": {"knows": {"description": "k", "class": "semantic", "domain": ["*"], "range": ["*"]}}}, "must define the generic 'related_to'"),
        ({"entity_types": {"person": {"description": "p", "synonyms": ["x"]}, "place": {"description": "q", "synonyms": ["x"]}}}, "synonym 'x' is claimed"),
        ({"entity_types": {"person": {"synonyms": []}}}, "entity_types.person: missing required key 'description'"),
    ],
)
def test_invalid_ontology_messages(patch: dict[str, object], expected: str) -> None:
    data = {**BASE, **{k: v for k, v in patch.items() if v is not None}}
    if patch.get("version", "") is None:
        data.pop("version")
        expected = "missing required key 'version'"
    with pytest.raises(OntologyError, match=expected.replace("(", r"\(")):
        parse_ontology(data, "onto.yaml")


def test_extraction_model_has_closed_type_sets() -> None:
    from pydantic import ValidationError

    model = load_ontology().extraction_model()
    ok = model.model_validate({"entities": [{"id": "person_a", "kind": "person", "name": "A"}], "relations": [
        {"type": "knows", "source": "person_a", "target": "person_b"}]})
    assert ok.model_dump()["relations"][0]["type"] == "knows"
    with pytest.raises(ValidationError):
        model.model_validate({"relations": [{"type": "loves", "source": "a", "target": "b"}]})
    with pytest.raises(ValidationError):
        model.model_validate({"entities": [{"id": "x", "kind": "spaceship", "name": "X"}]})
    schema = model.model_json_schema()
    assert "employed by" in str(schema)  # the ontology's descriptions are the LLM's instructions
