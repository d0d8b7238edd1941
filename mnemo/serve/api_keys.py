"""Per-namespace API keys for the HTTP API, stored hashed in `<data_dir>/api_keys.json`.

A key is shown once when created (`mnemo_<id>_<secret>`); only its SHA-256 is kept (the
secret is 32 random bytes, so a plain hash is enough). A key grants exactly one namespace.

Every change reads and rewrites the file holding an exclusive lock on `.api_keys.json.lock`
beside it, and readers hold it shared, so keys created, revoked or moved by several processes
at once are never lost or brought back; the file itself is replaced durably.
"""

import datetime as dt
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from mnemo.config import validate_namespace
from mnemo.errors import MnemoError
from mnemo.stores import durable
from mnemo.stores.locks import file_lock

KEYS_FILE = "api_keys.json"
PREFIX = "mnemo_"
LOCK_WAIT_SECONDS = 30.0


@dataclass(frozen=True)
class ApiKey:
    id: str
    namespace: str
    hash: str
    created: str
    label: str = ""


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class KeyStore:
    """The API keys under a data directory."""

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / KEYS_FILE

    def keys(self) -> list[ApiKey]:
        with self._locked(exclusive=False):
            return self._read()

    def create(self, namespace: str, label: str = "") -> tuple[ApiKey, str]:
        """A new key for the namespace; returns it and the full token (shown only now)."""
        namespace = validate_namespace(namespace)
        with self._locked(exclusive=True):
            keys = self._read()
            taken = {k.id for k in keys}
            key_id = secrets.token_hex(4)
            while key_id in taken:
                key_id = secrets.token_hex(4)
            token = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
            key = ApiKey(key_id, namespace, _digest(token),
                         dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), label)
            self._write([*keys, key])
        return key, token

    def revoke(self, key_id: str) -> ApiKey:
        with self._locked(exclusive=True):
            keys = self._read()
            found = [k for k in keys if k.id == key_id]
            if not found:
                raise MnemoError(f"no API key {key_id!r}")
            self._write([k for k in keys if k.id != key_id])
        return found[0]

    def move_to(self, other: "KeyStore", namespace: str) -> int:
        """Move the namespace's keys to another store (another shard's data root); their tokens
        keep working there. Written there first, so a key is never in neither store."""
        with self._locked(exclusive=True):
            moving = [k for k in self._read() if k.namespace == namespace]
            with other._locked(exclusive=True):
                theirs = other._read()
                known = {k.id for k in theirs}
                other._write([*theirs, *(k for k in moving if k.id not in known)])
            self._write([k for k in self._read() if k.namespace != namespace])
        return len(moving)

    def namespace_of(self, token: str) -> str | None:
        """The namespace a token grants, or None when it is not a valid key."""
        if not token.startswith(PREFIX):
            return None
        digest = _digest(token)
        for key in self.keys():
            if hmac.compare_digest(key.hash, digest):
                return key.namespace
        return None

    @contextmanager
    def _locked(self, exclusive: bool) -> Iterator[None]:
        lock = self.path.with_name(f".{self.path.name}.lock")
        with file_lock(lock, exclusive, LOCK_WAIT_SECONDS, f"{self.path} is busy with another key change"):
            yield

    def _read(self) -> list[ApiKey]:
        if not self.path.exists():
            return []
        try:
            rows = json.loads(self.path.read_text(encoding="utf-8"))
            return [ApiKey(**row) for row in rows]
        except (ValueError, TypeError) as exc:
            raise MnemoError(f"{self.path}: not a valid API key file ({exc})") from exc

    def _write(self, keys: list[ApiKey]) -> None:
        durable.write_json(self.path, [asdict(k) for k in keys], "api_keys", mode=0o600)
