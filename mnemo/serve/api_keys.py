"""Per-namespace API keys for the HTTP API, stored hashed in `<data_dir>/api_keys.json`.

A key is shown once when created (`mnemo_<id>_<secret>`); only its SHA-256 is kept (the
secret is 32 random bytes, so a plain hash is enough). A key grants exactly one namespace.
"""

import datetime as dt
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

from mnemo.config import validate_namespace
from mnemo.errors import MnemoError
from mnemo.stores import durable

KEYS_FILE = "api_keys.json"
PREFIX = "mnemo_"


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
        if not self.path.exists():
            return []
        try:
            rows = json.loads(self.path.read_text(encoding="utf-8"))
            return [ApiKey(**row) for row in rows]
        except (ValueError, TypeError) as exc:
            raise MnemoError(f"{self.path}: not a valid API key file ({exc})") from exc

    def create(self, namespace: str, label: str = "") -> tuple[ApiKey, str]:
        """A new key for the namespace; returns it and the full token (shown only now)."""
        key_id = secrets.token_hex(4)
        token = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        key = ApiKey(key_id, validate_namespace(namespace), _digest(token),
                     dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), label)
        self._write([*self.keys(), key])
        return key, token

    def revoke(self, key_id: str) -> ApiKey:
        keys = self.keys()
        found = [k for k in keys if k.id == key_id]
        if not found:
            raise MnemoError(f"no API key {key_id!r}")
        self._write([k for k in keys if k.id != key_id])
        return found[0]

    def move_to(self, other: "KeyStore", namespace: str) -> int:
        """Move the namespace's keys to another store (another shard's data root); their tokens
        keep working there. Written there first, so a key is never in neither store."""
        moving = [k for k in self.keys() if k.namespace == namespace]
        known = {k.id for k in other.keys()}
        other._write([*other.keys(), *(k for k in moving if k.id not in known)])
        self._write([k for k in self.keys() if k.namespace != namespace])
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

    def _write(self, keys: list[ApiKey]) -> None:
        durable.write_json(self.path, [asdict(k) for k in keys], "api_keys", mode=0o600)
