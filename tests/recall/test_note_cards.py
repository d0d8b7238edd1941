"""Note cards: a namespace of Spanish notes embedded by MiniLM also gets one e5 vector per note
(its names and opening words), and eager recall adds the notes whose cards are nearest the
question, so a question asked in German or Chinese finds the Spanish note it is about. English
notes get no cards, and recall over them is as before."""

from pathlib import Path

import pytest

from mnemo.documents import Document, Link
from mnemo.eval.notes import distinct_notes, ingest_vault
from mnemo.recall.engine import RecallEngine
from mnemo.recall.note_cards import CARDS, card_rows, card_text, first_passages, has_cards
from mnemo.recall.settings import Ranking, RecallSettings
from mnemo.stores.embedders import MiniLMEmbedder
from ontology import load_ontology

SPANISH_NOTES = {
    "1716390499-pequeo-teorema-de-fermat": ("Pequeño teorema de Fermat",
        "Sea a un entero y p un número primo que no lo divide; entonces a elevado a p menos uno es congruente "
        "con uno módulo p. La demostración cuenta los múltiplos de a módulo p."),
    "1710093688-distancia-entre-una-recta-y-un-plano": ("Distancia entre una recta y un plano",
        "La distancia entre una recta y un plano es cero si se cortan. Si son paralelos, se toma un punto "
        "cualquiera de la recta y se calcula su distancia al plano."),
    "1716491727-teorema-de-bayes": ("Teorema de Bayes",
        "Sea una partición de sucesos del espacio muestral; la probabilidad de cada suceso de la partición "
        "sabiendo que ha ocurrido otro se calcula con las probabilidades condicionadas."),
    "1715073673-mtodo-de-la-biseccin": ("Método de la bisección",
        "Sea f continua en un intervalo cerrado y acotado cuyos extremos tienen signos distintos: en cada paso "
        "se parte el intervalo por su punto medio y se conserva la mitad donde cambia el signo."),
    "1716491727-capabilities": ("Capabilities",
        "Las capabilities permiten otorgar permisos específicos a los binarios de Linux sin darles todos los "
        "privilegios del usuario administrador."),
    "1708597493-algoritmo-de-kruskal": ("Algoritmo de Kruskal",
        "Ordenamos las aristas del grafo ponderado de menor a mayor peso y añadimos cada una al árbol si no "
        "forma un ciclo con las anteriores, hasta tener un árbol generador mínimo."),
    "1716491727-regresin-lineal": ("Regresión lineal",
        "Es la recta que mejor se aproxima a la nube de puntos de la muestra; pasa siempre por el punto de "
        "las medias de las dos variables."),
    "1709641635-teorema-de-interpolacin-de-lagrange": ("Teorema de interpolación de Lagrange",
        "El problema de interpolación de Lagrange tiene solución única: por n más uno puntos pasa un único "
        "polinomio de grado como mucho n."),
}
ASKED = {  # a question in another language -> the Spanish note it is about, and the place it must reach
    "怎样找到加权图的最小生成树？": ("1708597493-algoritmo-de-kruskal.md", 1),
    "Wie berechnet man die Wahrscheinlichkeit einer Ursache, wenn die Wirkung schon eingetreten ist?":
        ("1716491727-teorema-de-bayes.md", 2),
}


def _vault(root: Path, notes: dict[str, tuple[str, str]]) -> Path:
    root.mkdir()
    for stem, (name, body) in notes.items():
        (root / f"{stem}.md").write_text(f"---\naliases:\n  - {name}\n---\n# {name}\n{body}\n", encoding="utf-8")
    return root


def test_a_card_is_the_notes_names_and_opening_words() -> None:
    note = Document("n1", "notes", "vault", "1708533902-depth-first-search.md", "1708533902-depth-first-search",
                    "note", "# Búsqueda\nVer [[1708534329-bfs|la búsqueda en anchura]] y **[[Grafo]]**.", "h")
    assert card_text(note) == "depth first search. Búsqueda Ver la búsqueda en anchura y Grafo ."
    named = Document("n2", "notes", "vault", "n2.md", "n2", "note", "x" * 900, "h", aliases=["Uno", "Dos", "Uno"])
    assert card_text(named) == "Uno; Dos. " + "x" * 300
    assert [r["doc_id"] for r in card_rows([note, named])] == ["n1", "n2"]


def test_a_card_names_the_notes_it_is_linked_with_both_ways() -> None:
    grafo = Document("g", "notes", "vault", "1706782930-grafo.md", "1706782930-grafo", "note",
                     "Un grafo es un par de vértices y aristas.", "h", aliases=["Grafo"])
    grado = Document("d", "notes", "vault", "1706783001-grado.md", "1706783001-grado", "note",
                     "El grado de un vértice de un [[1706782930-grafo|grafo]] cuenta sus aristas.", "h",
                     aliases=["Grado de un vértice"], links=[Link("1706782930-grafo", "grafo")])
    lone = Document("l", "notes", "vault", "lone.md", "lone", "note", "Sin enlaces.", "h")
    texts = {r["doc_id"]: r["embed_text"] for r in card_rows([grafo, grado, lone])}
    assert texts == {"g": "Grafo. Un grafo es un par de vértices y aristas. Grado de un vértice",
                     "d": "Grado de un vértice. El grado de un vértice de un grafo cuenta sus aristas. Grafo",
                     "l": "lone. Sin enlaces."}


@pytest.mark.slow
def test_ingest_writes_the_linked_names_into_the_cards(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault", {
        "1706782930-grafo": ("Grafo", "Un grafo es un par formado por vértices y aristas."),
        "1710247784-excentricidad": ("Excentricidad de un vértice",
                                     "La máxima distancia a otro vértice del [[1706782930-grafo|grafo]]."),
    })
    ingested = ingest_vault(vault, "obsidian", tmp_path / "work", MiniLMEmbedder(), load_ontology(), RecallSettings())
    rows = ingested.pipeline.vectors.must_open(CARDS).select(["path", "embed_text"]).to_pylist()
    texts = {r["path"]: r["embed_text"] for r in rows}
    assert texts["1706782930-grafo.md"].endswith(" Excentricidad de un vértice")
    assert texts["1710247784-excentricidad.md"].endswith(" Grafo")


@pytest.mark.slow
def test_questions_in_other_languages_find_spanish_notes_by_their_cards(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault", SPANISH_NOTES)
    ingested = ingest_vault(vault, "obsidian", tmp_path / "work", MiniLMEmbedder(), load_ontology(),
                            RecallSettings())
    assert has_cards(ingested.pipeline.vectors)
    assert ingested.pipeline.vectors.must_open(CARDS).count() == len(SPANISH_NOTES)
    engine = ingested.engine
    assert all(_place(engine, q, note) <= place for q, (note, place) in ASKED.items())
    engine.settings = RecallSettings(ranking=Ranking(card_weight=0.0), random_share=0.0)
    assert all(_place(engine, q, note) > place for q, (note, place) in ASKED.items())  # without the cards


def _place(engine: RecallEngine, question: str, note: str) -> int:
    notes = distinct_notes(engine.recall(question, k=len(SPANISH_NOTES), mode="eager"))
    return notes.index(note) + 1 if note in notes else len(SPANISH_NOTES) + 1


@pytest.mark.slow
def test_english_notes_get_no_cards(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault", {
        "fermat": ("Fermat's little theorem", "If p is a prime and a is not divisible by p, a to the power p minus "
                   "one is congruent to one modulo p; the proof counts the multiples of a modulo p."),
        "bisection": ("Bisection method", "Take a continuous function on a closed interval whose ends have "
                      "opposite signs; halve the interval at every step and keep the half where the sign changes."),
    })
    ingested = ingest_vault(vault, "obsidian", tmp_path / "work", MiniLMEmbedder(), load_ontology(), RecallSettings())
    assert not has_cards(ingested.pipeline.vectors)
    assert distinct_notes(ingested.engine.recall("how do I halve an interval to find a root?", k=2))[0] == "bisection.md"


def test_a_card_notes_first_passage_is_found_alike_in_held_rows_and_by_one_lookup(tmp_path: Path) -> None:
    long = " ".join(f"palabra{n}" for n in range(150))
    vault = _vault(tmp_path / "vault", {
        "1706782930-grafo": ("Grafo", f"Un grafo es un par.\n\n## Vértices\n{long}\n\n## Aristas\n{long}"),
        "1706783161-multigrafo": ("Multigrafo", f"Un multigrafo admite aristas repetidas.\n\n## Lazos\n{long}"),
    })
    ingested = ingest_vault(vault, "obsidian", tmp_path / "work", MiniLMEmbedder(), load_ontology(), RecallSettings())
    chunks = ingested.pipeline.files.read_chunks()
    expected = {c.doc_id: c.id for c in chunks if c.position == 0}
    assert len(chunks) > len(expected) == 2  # every note has more than one passage
    table = ingested.pipeline.vectors.must_open("chunks")
    held = ingested.engine.reads.held(table)
    assert held is not None
    docs = [*expected, "no-such-note"]
    assert first_passages(table, docs, held) == expected
    assert first_passages(table, docs) == expected
    assert first_passages(table, []) == {}
