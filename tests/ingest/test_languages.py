"""The languages of a namespace's text, told offline from the text itself, and the embedder they
call for: MiniLM for English; where other languages make up a share that matters, multilingual e5
only when it measured better on the multilingual questions and no worse on the English ones."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from mnemo.config import load_config
from mnemo.documents import Document
from mnemo.ingest.embedder_choice import (
    CHOICE_FILE,
    DOCUMENTS_FILE,
    MEASURED,
    PROFILED_DOCUMENTS,
    EmbedderChoice,
    Measured,
    choose_embedder,
    choose_for_documents,
    current_choice,
    namespace_embedder_settings,
    record_choice,
)
from mnemo.ingest.languages import language_profile, merged_profiles, text_language
from tests.support import corpus

SPANISH = ("El algoritmo de búsqueda en profundidad explora cada rama hasta el final antes de volver atrás. "
           "Se usa una pila para guardar los nodos que quedan por visitar y es muy útil en los grafos.")
PORTUGUESE = ("O teorema mestre permite resolver recorrências que aparecem na análise de algoritmos de divisão "
              "e conquista. Não é preciso expandir a árvore de recursão: basta comparar os termos.")
ENGLISH = ("The depth-first search explores each branch to the end before it backs up. It keeps the nodes "
           "that are still to be visited on a stack and is useful on graphs.")
GERMAN = "Der Algorithmus besucht zuerst alle Nachbarn eines Knotens, bevor er tiefer in den Graphen geht."


@pytest.mark.parametrize(("text", "language"), [
    (SPANISH, "es"), (PORTUGUESE, "pt"), (ENGLISH, "en"), (GERMAN, "de"),
    ("深度优先搜索会沿着一条路径一直走到底，然后再回溯。", "zh"),
    ("深さ優先探索は、行き止まりまで進んでから戻ります。", "ja"),
    ("Поиск в глубину идёт по одной ветви до конца, а потом возвращается.", "ru"),
])
def test_a_text_is_named_by_its_script_or_its_commonest_words(text: str, language: str) -> None:
    assert text_language(text)[0] == language


def test_a_text_too_short_to_tell_is_not_named_and_links_do_not_count() -> None:
    assert text_language("Blade Runner (1982)")[0] is None
    assert text_language("see https://example.com/o/e/as/da/de/com")[0] is None


def test_the_profile_gives_each_language_its_share_of_the_words() -> None:
    profile = language_profile([SPANISH, SPANISH, SPANISH, ENGLISH, "42"])
    assert profile.texts == 5 and set(profile.shares) == {"es", "en"}
    assert profile.shares["es"] > 0.7 and profile.other_than_english() == profile.shares["es"]
    both = merged_profiles([language_profile([ENGLISH]), language_profile([SPANISH])])
    assert both.texts == 2 and set(both.shares) == {"es", "en"}


def test_english_text_keeps_minilm_and_other_languages_get_e5_only_where_it_measured_better() -> None:
    english = choose_embedder(language_profile([ENGLISH] * 19 + [SPANISH]))
    assert english.kind == "minilm" and "English" in english.reason
    assert choose_embedder(language_profile(["42", "Blade Runner"])).kind == "minilm"
    spanish = language_profile([SPANISH] * 3 + [ENGLISH])
    shipped = choose_embedder(spanish)  # e5 and the pair both measured worse on the multilingual questions
    assert shipped.kind == "minilm" and "measured better" in shipped.reason and shipped.languages.startswith("es")
    assert f"minilm+e5: MRR {MEASURED['minilm+e5'].multilingual:.3f}" in shipped.reason
    minilm = Measured(multilingual=0.40, english=0.90)
    better = {"minilm": minilm, "e5": Measured(multilingual=0.50, english=0.895)}
    assert choose_embedder(spanish, better).kind == "e5"
    worse_in_english = {"minilm": minilm, "e5": Measured(multilingual=0.50, english=0.885)}
    assert choose_embedder(spanish, worse_in_english).kind == "minilm"
    assert choose_embedder(language_profile([ENGLISH]), better).kind == "minilm"
    both = {**better, "minilm+e5": Measured(multilingual=0.60, english=0.92)}  # the best that passes is chosen
    assert choose_embedder(spanish, both).kind == "minilm+e5"


def test_the_real_vaults_are_told_apart() -> None:
    def other(name: str) -> float:
        return language_profile(p.read_text(encoding="utf-8", errors="replace")
                                for p in corpus(name).rglob("*.md")).other_than_english()

    assert other("obsidian-antoniolandin-es") > 0.5
    assert all(other(v) < 0.10 for v in ("obsidian-kepano", "obsidian-ideaverse", "logseq-docs"))


def _config(tmp_path: Path, embedder: dict[str, str] | None) -> Path:
    data = {"data_dir": str(tmp_path / "data"), "namespaces": {"test": {"sources": []}}}
    if embedder is not None:
        data["embedder"] = embedder
    path = tmp_path / "mnemo.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_the_recorded_choice_is_used_unless_mnemo_yaml_names_an_embedder(tmp_path: Path) -> None:
    root = tmp_path / "data" / "test"
    automatic = load_config(_config(tmp_path, None))
    assert current_choice(automatic, root).kind == "minilm"  # nothing recorded yet
    record_choice(root, EmbedderChoice("e5", "es 0.95, en 0.05", "mostly Spanish"))
    assert current_choice(automatic, root) == EmbedderChoice("e5", "es 0.95, en 0.05", "mostly Spanish")
    assert namespace_embedder_settings(automatic, root).kind == "e5"
    explicit = load_config(_config(tmp_path, {"kind": "hashing"}))
    assert namespace_embedder_settings(explicit, root).kind == "hashing"
    assert current_choice(explicit, root).reason.startswith("set by `embedder:`")


def test_the_documents_languages_are_told_again_only_when_the_table_changed(tmp_path: Path) -> None:
    config, root = load_config(_config(tmp_path, None)), tmp_path / "data" / "test"
    root.mkdir(parents=True)
    table = root / DOCUMENTS_FILE
    read: list[int] = []

    def documents(count: int, text: str) -> Callable[[], list[Document]]:
        def read_them() -> list[Document]:
            docs = [Document(f"d{i:04}", "test", "notes", f"{i}.md", f"nota {i}", "note", text, f"h{i}")
                    for i in range(count)]
            read.append(count)
            return docs
        return read_them

    table.write_bytes(b"one version")
    first = choose_for_documents(config, root, documents(1000, SPANISH))
    assert read == [1000] and first.languages.startswith("es")
    assert choose_for_documents(config, root, documents(1000, SPANISH)) == first and read == [1000]  # unchanged: not read
    table.write_bytes(b"another version, longer")
    assert choose_for_documents(config, root, documents(10, ENGLISH)).languages.startswith("en") and read == [1000, 10]


def test_a_large_namespace_is_told_from_a_bounded_sample(tmp_path: Path) -> None:
    config, root = load_config(_config(tmp_path, None)), tmp_path / "data" / "test"
    docs = [Document(f"d{i:05}", "test", "notes", f"{i}.md", f"n{i}", "note", SPANISH if i % 2 else ENGLISH, f"h{i}")
            for i in range(5000)]
    choice = choose_for_documents(config, root, lambda: docs)
    profile = json.loads((root / CHOICE_FILE).read_text(encoding="utf-8"))["profile"]
    assert profile["texts"] <= PROFILED_DOCUMENTS and {"es", "en"} <= set(profile["shares"])
    assert choice.kind == "minilm"


def test_small_changes_keep_the_told_languages_until_a_tenth_of_the_notes_or_a_day(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    config, root = load_config(_config(tmp_path, None)), tmp_path / "data" / "test"
    root.mkdir(parents=True)
    read: list[int] = []

    def table_of(count: int) -> Callable[[], list[Document]]:
        pq.write_table(pa.table({"id": [f"d{i:04}" for i in range(count)]}), root / DOCUMENTS_FILE)

        def read_them() -> list[Document]:
            read.append(count)
            return [Document(f"d{i:04}", "test", "notes", f"{i}.md", f"nota {i}", "note", SPANISH, f"h{i}")
                    for i in range(count)]
        return read_them

    assert choose_for_documents(config, root, table_of(100)).languages.startswith("es") and read == [100]
    choose_for_documents(config, root, table_of(101))  # one note added: the languages stand
    choose_for_documents(config, root, table_of(105))
    assert read == [100]
    choose_for_documents(config, root, table_of(110))  # a tenth more than when they were told
    assert read == [100, 110]
    choose_for_documents(config, root, table_of(111))
    assert read == [100, 110]
    record = json.loads((root / CHOICE_FILE).read_text(encoding="utf-8"))
    record["told"][1] -= 2 * 24 * 3600  # told two days ago
    (root / CHOICE_FILE).write_text(json.dumps(record), encoding="utf-8")
    choose_for_documents(config, root, table_of(112))
    assert read == [100, 110, 112]
