"""The small error hierarchy every part of mnemo raises from."""


class MnemoError(Exception):
    """Base class of every error mnemo raises on purpose."""


class ConfigError(MnemoError):
    """The configuration file is missing, unreadable or invalid."""


class UnknownNamespace(ConfigError):
    """A namespace the configuration does not list: refused before anything is read or created."""

    def __init__(self, message: str, namespace: str) -> None:
        super().__init__(message)
        self.namespace = namespace


class NotIngested(MnemoError):
    """A configured namespace that holds nothing yet: no ingest has run and nothing was remembered."""


class SourceError(MnemoError):
    """One source file could not be read or parsed; the run goes on without it."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class OntologyError(MnemoError):
    """The ontology file itself is invalid."""


class InvalidQuery(MnemoError, ValueError):
    """A recall request that cannot be answered as asked: an empty query, an unknown mode."""


class StoreLocked(MnemoError):
    """The graph database is held by another process."""


class GraphIncomplete(StoreLocked):
    """The graph database lacks tables: the write that created it was cut off before its schema was
    complete. Readers degrade as while a writer holds it; the next writer completes it."""


class GraphEngineError(MnemoError):
    """The graph was built by another engine than the configured one, or the configured engine
    cannot be loaded in this process."""


class LLMError(MnemoError):
    """The configured LLM endpoint failed or answered something unusable."""


class WritebackRefused(MnemoError):
    """A note cannot be written back to safely; it is left exactly as it is."""


class ModelFileError(MnemoError):
    """A packaged model file is missing, unreadable or not the file mnemo pins."""


class MisplacedNamespace(MnemoError):
    """A namespace asked of a shard that does not hold it (the answer names the shard that does)."""

    def __init__(self, namespace: str, shard: str, here: str, url: str = "") -> None:
        where = f" at {url}" if url else ""
        super().__init__(f"namespace {namespace!r} is held by shard {shard!r}{where}, not by this shard ({here!r})")
        self.namespace, self.shard, self.here, self.url = namespace, shard, here, url
