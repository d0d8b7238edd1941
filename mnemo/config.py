"""The one configuration file (`mnemo.yaml`): data directory, namespaces and their sources,
the embedder and the optional LLM endpoint."""

import os
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mnemo.errors import ConfigError
from mnemo.sleep.settings import SleepConfig

CONFIG_ENV = "MNEMO_CONFIG"
DEFAULT_CONFIG = "mnemo.yaml"
NAMESPACE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\Z")  # \Z: `$` would admit a trailing newline
SOURCE_KINDS = ("obsidian", "logseq", "chatgpt", "claude", "jsonl", "locomo", "inbox", "memories")


def validate_namespace(name: str) -> str:
    if not isinstance(name, str) or not NAMESPACE_PATTERN.match(name):
        raise ConfigError(
            f"invalid namespace name {name!r}: use 1-64 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceConfig(_Strict):
    kind: Literal["obsidian", "logseq", "chatgpt", "claude", "jsonl", "locomo", "inbox", "memories"]
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
    kind: Literal["minilm", "e5", "hashing", "openai"] = "minilm"
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
    mode: Literal["tools", "json_schema", "json"] = "tools"
    transient_retries: int = Field(default=4, ge=0, le=20)
    retry_wait: float = Field(default=1.0, ge=0)
    input_cost_per_mtok: float = Field(default=0.0, ge=0)
    output_cost_per_mtok: float = Field(default=0.0, ge=0)


class GroundingConfig(_Strict):
    """How much of what memory already knows is shown to an extractor for each chunk."""

    max_entities: int = Field(default=20, ge=1, le=200)
    neighbours: int = Field(default=8, ge=0, le=100)
    min_similarity: float = Field(default=0.35, ge=-1, le=1)
    salient: int = Field(default=5, ge=0, le=100)


class ChunkingConfig(_Strict):
    max_words: int = Field(default=180, ge=20, le=2000)


class VectorIndexConfig(_Strict):
    """When a vector table gets an approximate (ANN) index; below `min_rows` search stays exact.
    The default matches recall's `hold_rows`: up to that size recall holds the chunks table in
    memory and searches it exactly, so an index there would be built and never read."""

    min_rows: int = Field(default=50_000, ge=256)
    kind: Literal["IVF_HNSW_SQ", "IVF_PQ"] = "IVF_HNSW_SQ"


class WatchConfig(_Strict):
    """The file-drop sensor: how long a folder must be quiet before a run is requested."""

    settle_seconds: float = Field(default=10.0, ge=0, le=3600)


class WritebackConfig(_Strict):
    key: str = Field(default="mnemo", pattern=r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
    exclude: tuple[str, ...] = ()
    max_related: int = Field(default=8, ge=0, le=100)
    max_mentions: int = Field(default=12, ge=0, le=200)


class MnemoConfig(_Strict):
    data_dir: Path = Path(".mnemo")
    namespaces: dict[str, NamespaceConfig] = Field(default_factory=dict)
    embedder: EmbedderConfig = EmbedderConfig()
    llm: LLMConfig | None = None
    chunking: ChunkingConfig = ChunkingConfig()
    watch: WatchConfig = WatchConfig()
    writeback: WritebackConfig = WritebackConfig()
    grounding: GroundingConfig = GroundingConfig()
    sleep: SleepConfig = SleepConfig()
    vector_index: VectorIndexConfig = VectorIndexConfig()
    path: Path | None = Field(default=None, exclude=True)

    @field_validator("namespaces")
    @classmethod
    def _check_names(cls, value: dict[str, NamespaceConfig]) -> dict[str, NamespaceConfig]:
        for name in value:
            if not NAMESPACE_PATTERN.match(name):
                raise ValueError(
                    f"invalid namespace name {name!r}: use lower-case letters, digits, '-' or '_'"
                )
        return value

    def namespace(self, name: str) -> NamespaceConfig:
        validate_namespace(name)
        return self.namespaces.get(name, NamespaceConfig())

    def namespace_dir(self, name: str) -> Path:
        return self.data_dir / validate_namespace(name)


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
    return config.model_copy(update={"data_dir": base / config.data_dir, "namespaces": namespaces, "path": path})


def load_config(explicit: str | Path | None = None) -> MnemoConfig:
    """Read the configuration file, failing with a message that names the file and the problem."""
    path = resolve_config_path(explicit)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: configuration file not found (set {CONFIG_ENV} or pass --config)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration ({exc})") from None
    kept = _LOADED.get(path)
    if kept is not None and kept[0] == text:
        return kept[1]
    try:
        data = yaml.load(text, Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    config = parse_config(data, path)
    _LOADED[path] = text, config
    return config


# libyaml's safe loader where PyYAML was built with it (the same documents, parsed ~10x faster)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# path -> (the text last parsed there, its config): a run loads the file once per resource and
# check; configs are frozen, so the parsed one is handed out again while the text is the same
_LOADED: dict[Path, tuple[str, MnemoConfig]] = {}
