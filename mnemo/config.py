"""The one configuration file (`mnemo.yaml`): data directory, namespaces and their sources,
the embedder, the optional LLM endpoint, and the shards of a many-machine deployment."""

import hashlib
import os
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mnemo.errors import ConfigError, MisplacedNamespace

CONFIG_ENV = "MNEMO_CONFIG"
SHARD_ENV = "MNEMO_SHARD"  # the shard this process is (a worker's or a server's machine)
# Every run of a namespace carries this tag (its value: the namespace): the run queue admits one run
# per value, and a many-machine launcher sends the run to the namespace's shard.
NAMESPACE_TAG = "mnemo/namespace"
DEFAULT_CONFIG = "mnemo.yaml"
NAMESPACE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\Z")  # \Z: `$` would admit a trailing newline
# the kinds of source mnemo reads; the scanner has one parser for each
SourceKind = Literal["obsidian", "logseq", "chatgpt", "claude", "jsonl", "locomo", "inbox", "memories"]


def validate_namespace(name: str) -> str:
    if not isinstance(name, str) or not NAMESPACE_PATTERN.match(name):
        raise ConfigError(
            f"invalid namespace name {name!r}: use 1-64 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


class SleepConfig(BaseModel):
    """When and how hard sleep mode consolidates memory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cron: str = "0 3 * * *"
    timezone: str = "UTC"
    merge_threshold: float = Field(default=0.9, ge=0.0, le=1.0)
    review_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    week_after_days: int = Field(default=14, ge=1)
    month_after_days: int = Field(default=90, ge=1)
    fade_below: float = Field(default=0.15, ge=0.0, le=1.0)
    promote_after_accesses: int = Field(default=3, ge=1)
    top_of_mind: int = Field(default=10, ge=0)
    llm: bool = True  # with an `llm:` endpoint configured: abstractive summaries, portrait, abstractions
    # rebuild the graph from the memory files once its file has grown to this many times its size
    # after the last rebuild (see mnemo.maintenance.compaction)
    compact_growth: float = Field(default=2.0, gt=1.0)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceConfig(_Strict):
    kind: SourceKind
    path: Path
    name: str = ""
    exclude: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """A short stable name for the source, used in document ids."""
        return self.name or f"{self.kind}:{self.path.name}"


class NamespaceConfig(_Strict):
    sources: tuple[SourceConfig, ...] = ()
    self_name: str | None = Field(default=None, alias="self")
    # Chat speakers (names or roles) that are the namespace's own person; `user`/`human` always are.
    self_speakers: tuple[str, ...] = ()

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class EmbedderConfig(_Strict):
    kind: Literal["minilm", "e5", "minilm+e5", "hashing", "openai"] = "minilm"
    model: str = ""
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    dimensions: int = 384
    batch_size: int = Field(default=64, ge=1, le=4096)


class LLMConfig(_Strict):
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = Field(default=60.0, gt=0)
    concurrency: int = Field(default=2, ge=1, le=64)
    max_retries: int = Field(default=2, ge=0, le=10)
    mode: Literal["tools", "json_schema", "json", "auto"] = "tools"  # auto: probe once, keep the first that works
    transient_retries: int = Field(default=4, ge=0, le=20)
    retry_wait: float = Field(default=1.0, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)  # cap on an extraction answer's tokens
    input_cost_per_mtok: float = Field(default=0.0, ge=0)
    output_cost_per_mtok: float = Field(default=0.0, ge=0)


class GroundingConfig(_Strict):
    """How much of what memory already knows is shown to an extractor for each chunk."""

    max_entities: int = Field(default=20, ge=1, le=200)
    neighbours: int = Field(default=8, ge=0, le=100)
    min_similarity: float = Field(default=0.35, ge=-1, le=1)
    salient: int = Field(default=5, ge=0, le=100)


class GraphConfig(_Strict):
    """The graph database engine: Kùzu (the default) or LadybugDB, its maintained continuation. A graph
    built by one is rebuilt for the other (`mnemo doctor --rebuild-graph`)."""

    engine: Literal["kuzu", "ladybug"] = "kuzu"


class ChunkingConfig(_Strict):
    max_words: int = Field(default=180, ge=20, le=2000)


class VectorIndexConfig(_Strict):
    """When a vector table gets an approximate (ANN) index; below `min_rows` search stays exact.
    The default matches recall's `hold_rows`: up to that size recall holds the chunks table in
    memory and searches it exactly, so an index there would be built and never read."""

    min_rows: int = Field(default=50_000, ge=256)
    kind: Literal["IVF_HNSW_SQ", "IVF_PQ"] = "IVF_HNSW_SQ"


class ArchivesConfig(_Strict):
    """How much `mnemo restore` and `mnemo import` may write: at most `max_ratio` times the
    archive's (or export folder's) own size, but always up to `min_bytes`, and never more than
    `max_bytes`; a larger one is refused before anything is unpacked."""

    max_bytes: int = Field(default=100 * 2**30, ge=1)
    max_ratio: float = Field(default=200.0, gt=0)
    min_bytes: int = Field(default=2**30, ge=0)


class WatchConfig(_Strict):
    """The file-drop sensor: how long a folder must be quiet before a run is requested."""

    settle_seconds: float = Field(default=10.0, ge=0, le=3600)


class WritebackConfig(_Strict):
    key: str = Field(default="mnemo", pattern=r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
    # folders of each vault (relative to it): only notes inside `include` (all when empty) and
    # outside `exclude` are written; exclude wins
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_related: int = Field(default=8, ge=0, le=100)
    max_mentions: int = Field(default=12, ge=0, le=200)
    max_mentioned_in: int = Field(default=10, ge=0, le=200)
    # generated pages: a top-level folder of each vault (Logseq: `pages/<folder>___*.md`); "" for none
    folder: str = Field(default="Mnemo", pattern=r"^([A-Za-z0-9_][A-Za-z0-9 _-]{0,63})?$")
    # the nightly schedule writes back after sleep mode; off unless asked, as it edits the notes
    nightly: bool = False

    @field_validator("include", "exclude")
    @classmethod
    def _relative_folders(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        """Folders as relative paths (`Projects/2024`); an absolute path or one with `..` is refused."""
        folders = []
        for folder in value:
            parts = folder.strip().replace("\\", "/").split("/")
            if folder.startswith(("/", "~")) or ".." in parts or re.match(r"^[A-Za-z]:", folder):
                raise ValueError(f"{folder!r} is not a folder inside the vault: give it relative to the vault's root")
            folders.append("/".join(p for p in parts if p not in ("", ".")))
        return tuple(f for f in folders if f)


class ShardConfig(_Strict):
    """One shard: a machine's data root, the Celery queue its worker reads, where its server answers."""

    data_dir: Path
    queue: str = Field(default="", pattern=r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})?$")  # "" means mnemo-<name>
    url: str = ""  # `mnemo serve` of this shard, named in the answer for a namespace held here


def rendezvous_shard(namespace: str, shards: list[str]) -> str:
    """The shard a namespace hashes to: the one with the highest sha256 of `shard/namespace`
    (rendezvous hashing: adding a shard moves only the namespaces that now hash to it)."""
    return max(shards, key=lambda shard: hashlib.sha256(f"{shard}/{namespace}".encode()).digest())


class MnemoConfig(_Strict):
    data_dir: Path = Path(".mnemo")
    namespaces: dict[str, NamespaceConfig] = Field(default_factory=dict)
    default_namespace: str | None = None  # what commands use without --namespace (else the only namespace)
    embedder: EmbedderConfig = EmbedderConfig()
    llm: LLMConfig | None = None
    chunking: ChunkingConfig = ChunkingConfig()
    graph: GraphConfig = GraphConfig()
    watch: WatchConfig = WatchConfig()
    writeback: WritebackConfig = WritebackConfig()
    grounding: GroundingConfig = GroundingConfig()
    sleep: SleepConfig = SleepConfig()
    vector_index: VectorIndexConfig = VectorIndexConfig()
    archives: ArchivesConfig = ArchivesConfig()
    shards: dict[str, ShardConfig] = Field(default_factory=dict)
    placement: dict[str, str] = Field(default_factory=dict)  # namespace -> shard, over the hash
    path: Path | None = Field(default=None, exclude=True)
    shard: str | None = Field(default=None, exclude=True)  # this process's shard ($MNEMO_SHARD)

    @field_validator("namespaces")
    @classmethod
    def _check_names(cls, value: dict[str, NamespaceConfig]) -> dict[str, NamespaceConfig]:
        for name in value:
            if not NAMESPACE_PATTERN.match(name):
                raise ValueError(
                    f"invalid namespace name {name!r}: use lower-case letters, digits, '-' or '_'"
                )
        return value

    @model_validator(mode="after")
    def _check_shards(self) -> "MnemoConfig":
        for name in self.shards:
            if not NAMESPACE_PATTERN.match(name):
                raise ValueError(f"invalid shard name {name!r}: use lower-case letters, digits, '-' or '_'")
        for namespace, shard in self.placement.items():
            if not NAMESPACE_PATTERN.match(namespace):
                raise ValueError(f"placement: invalid namespace name {namespace!r}")
            if shard not in self.shards:
                known = ", ".join(sorted(self.shards)) or "none"
                raise ValueError(f"placement: {namespace!r} is placed on {shard!r}, not a configured shard ({known})")
        return self

    @model_validator(mode="after")
    def _check_default(self) -> "MnemoConfig":
        if self.default_namespace is not None and self.default_namespace not in self.namespaces:
            known = ", ".join(sorted(self.namespaces)) or "none"
            raise ValueError(f"default_namespace {self.default_namespace!r} is not a configured namespace ({known})")
        return self

    def default_namespace_name(self) -> str:
        """The namespace to use when none is named: `default_namespace`, else the only one configured."""
        if self.default_namespace is not None:
            return self.default_namespace
        if len(self.namespaces) == 1:
            return next(iter(self.namespaces))
        names = ", ".join(sorted(self.namespaces)) or "none"
        raise ConfigError(
            f"{self.path or 'the configuration'}: {len(self.namespaces)} namespaces configured ({names}); "
            "name one with --namespace, or set default_namespace"
        )

    def namespace(self, name: str) -> NamespaceConfig:
        validate_namespace(name)
        return self.namespaces.get(name, NamespaceConfig())

    def namespace_dir(self, name: str) -> Path:
        return self.data_root(name) / validate_namespace(name)

    def shard_of(self, namespace: str) -> str | None:
        """The shard holding `namespace`: its `placement:` entry, else its hash; None unsharded."""
        if not self.shards:
            return None
        return self.placement.get(namespace) or rendezvous_shard(validate_namespace(namespace), sorted(self.shards))

    def queue_of(self, namespace: str) -> str | None:
        """The Celery queue of the shard holding `namespace` (None unsharded)."""
        shard = self.shard_of(namespace)
        return None if shard is None else self.shards[shard].queue or f"mnemo-{shard}"

    def data_root(self, namespace: str) -> Path:
        """The folder holding `namespace`'s folder: its shard's data root, else `data_dir`."""
        shard = self.shard_of(namespace)
        return self.data_dir if shard is None else self.shards[shard].data_dir

    def holds(self, namespace: str) -> bool:
        """Whether this process (its shard, or the one machine when unsharded) holds `namespace`."""
        return self.shard is None or self.shard_of(namespace) == self.shard

    def check_holds(self, namespace: str) -> None:
        """Nothing when this process holds `namespace`; else MisplacedNamespace naming its shard."""
        shard = self.shard_of(namespace)
        if self.shard is not None and shard is not None and shard != self.shard:
            raise MisplacedNamespace(namespace, shard, self.shard, self.shards[shard].url)


def resolve_config_path(explicit: str | Path | None = None) -> Path:
    """The config file to use: an explicit path, else $MNEMO_CONFIG, else ./mnemo.yaml."""
    return Path(explicit or os.environ.get(CONFIG_ENV) or DEFAULT_CONFIG).expanduser().resolve()


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        lines.append(f"  {where}: {item['msg']}")
    return "\n".join(lines)


def parse_config(data: object, path: Path) -> MnemoConfig:
    """Validate raw config data; relative paths are taken relative to the config file."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of settings")
    try:
        config = MnemoConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: invalid configuration\n{_describe(exc)}") from None
    base = path.parent
    namespaces = {
        name: ns.model_copy(
            update={"sources": tuple(s.model_copy(update={"path": base / s.path}) for s in ns.sources)}
        )
        for name, ns in config.namespaces.items()
    }
    shards = {name: s.model_copy(update={"data_dir": base / s.data_dir}) for name, s in config.shards.items()}
    return config.model_copy(
        update={"data_dir": base / config.data_dir, "namespaces": namespaces, "shards": shards, "path": path}
    )


def as_shard(config: MnemoConfig, shard: str | None) -> MnemoConfig:
    """`config` as seen by the process that is `shard`: its data root is `data_dir`."""
    if not shard:
        return config
    if shard not in config.shards:
        known = ", ".join(sorted(config.shards)) or "none"
        raise ConfigError(f"{config.path or 'the configuration'}: ${SHARD_ENV} names shard {shard!r}, "
                          f"which is not under shards: ({known})")
    return config.model_copy(update={"shard": shard, "data_dir": config.shards[shard].data_dir})


def load_config(explicit: str | Path | None = None) -> MnemoConfig:
    """Read the configuration file, failing with a message that names the file and the problem."""
    return ConfigFile(explicit).load()


class ConfigFile:
    """The configuration file a holder (a run's config resource) loads again and again: parsed
    again only when its path or text changed (configs are frozen, so the parsed one is handed out
    again)."""

    def __init__(self, explicit: str | Path | None = None) -> None:
        self.explicit = explicit
        self._parsed: tuple[Path, str, MnemoConfig] | None = None

    def load(self) -> MnemoConfig:
        path = resolve_config_path(self.explicit)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(
                f"{path}: configuration file not found: make one with `mnemo init PATH` (your vault, graph or "
                f"chat export), or point to yours with --config or ${CONFIG_ENV}"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read configuration ({exc})") from None
        if self._parsed is None or self._parsed[:2] != (path, text):
            try:
                data = yaml.load(text, Loader=_YAML_LOADER)
            except yaml.YAMLError as exc:
                raise ConfigError(f"{path}: invalid YAML: {exc}") from None
            self._parsed = path, text, parse_config(data, path)
        return as_shard(self._parsed[2], os.environ.get(SHARD_ENV))


# libyaml's safe loader where PyYAML was built with it (the same documents, parsed ~10x faster)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
