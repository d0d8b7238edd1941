"""How recall is tuned: what a deployment sets, and the ranking weights the evaluation fits.

`RecallSettings` holds what a deployment may change (pool sizes, the token budget, the
per-note cap, exploration, memory held per process). Its `ranking` is a `Ranking`: which
fusion strategy ranks the searches' hits (`recall.fusion`, chosen once when the engine is
built) and the weights, fitted by the evaluation protocol (see docs/EVALUATION.md) and
changed only by the ablation benchmarks."""

from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from mnemo.errors import ConfigError

Mode = Literal["eager", "deliberate"]
FusionName = Literal["learned", "scored", "rrf"]
FUSIONS: tuple[FusionName, ...] = ("learned", "scored", "rrf")
# settings that no longer exist: never set by default, their steps are gone (docs/RECALL.md)
REMOVED = ("episode_weight", "feedback_docs", "feedback_weight", "lexical_weight", "semantic_weight", "speaker_weight")


@dataclass(frozen=True)
class Ranking:
    """How recall weighs its signals; the defaults are what the LoCoMo evaluation supports."""

    rrf_k: int = 60
    # the strategy (`recall.fusion`): learned: recall.learned's trees when most hits are turns of
    # conversations between people, else the weights below; scored: the weights; rrf: reciprocal rank
    fusion: FusionName = "learned"
    ranker: str = ""  # the learned ranking's trees: a JSON file (empty: the packaged recall/ranker.json)
    cosine_weight: float = 9.0
    bm25_weight: float = 2.5
    unread_query_bm25_factor: float = 4.0  # BM25 × this for a query the embedder cannot read (recall.query_language)
    card_weight: float = 2.0  # notes whose multilingual card is nearest the query (recall.note_cards; 0: none)
    card_decay: float = 0.5  # the card at place p gains card_weight × best ÷ p ** this (both fitted)
    speaker_bonus: float = 3.0
    neighbour_cosine_weight: float = 2.0
    neighbour_bm25_weight: float = 1.5
    session_weight: float = 70.0
    second_neighbour_cosine_weight: float = 1.0
    dated_weight: float = 1.5  # a chat turn that states or implies a date (recall.rank)
    dated_when_weight: float = 0.8  # the same, more when the query asks when
    neighbour_weight: float = 0.5  # notes linked with the best notes (recall.linked; after sleep)
    theme_weight: float = 1.0  # notes of a theme (community, hub note) the question matches (recall.linked)
    second_round_weight: float = 0.0  # the second round's share when merged with the first (0: no second round)
    second_round_docs: int = 3  # first-round hits whose words expand the query
    second_round_terms: int = 5  # words they add
    second_round_eager: bool = False  # eager recall runs it too (deliberate always does when the weight is set)
    profile_weight: float = 0.0  # turns cited by the profile items nearest the query gain this times its cosine
    profile_items: int = 1  # profile items (sleep mode's, per speaker and topic) a query takes
    entity_weight: float = 1.0
    salience_weight: float = 0.3
    date_weight: float = 1.0  # passages of a day the question names gain this share of the best score
    per_note_window: int = 30  # candidates the per-note cap reorders, at least

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise ConfigError(f"unknown recall fusion {self.fusion!r}: use one of {', '.join(FUSIONS)}")


@dataclass(frozen=True)
class RecallSettings:
    """What a deployment sets about recall."""

    pool: int = 50  # candidates each search contributes in eager mode
    deliberate_pool: int = 100  # and in deliberate mode
    token_budget: int = 1200  # the assembled text's size
    per_note: int = 2  # passages of one note or journal day before every other note's next (0: no cap)
    random_share: float = 0.1  # share of the items drawn from outside the best, so memory is not one rut
    graph_wait: float = 1.0  # seconds to wait for a graph another process writes before degrading
    hold_rows: int = 50_000  # chunks tables up to this size are held in memory per version (0: never)
    exact_vectors: bool = True  # a held table is searched exactly, not through its ANN index
    ranking: Ranking = field(default_factory=Ranking)

    def with_overrides(self, **overrides: Any) -> "RecallSettings":
        """A copy with fields of either class changed by name (how the ablation benchmarks switch them);
        a name neither class has is refused, naming it."""
        ranking_names = {f.name for f in fields(Ranking)}
        unknown = sorted(set(overrides) - ranking_names - {f.name for f in fields(RecallSettings)})
        if unknown:
            removed = [name for name in unknown if name in REMOVED]
            why = f" ({', '.join(removed)}: removed, see docs/RECALL.md)" if removed else ""
            raise ConfigError(f"unknown recall setting{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}{why}")
        ranked = {k: v for k, v in overrides.items() if k in ranking_names}
        own = {k: v for k, v in overrides.items() if k not in ranking_names}
        return replace(self, **own, ranking=replace(self.ranking, **ranked))

