"""`since` and `until` on the HTTP API must be extended ISO dates or times, `since` not after
`until`: anything else is 400 naming the parameter and the accepted forms (real server on 127.0.0.1)."""

from collections.abc import Iterator

import httpx
import pytest

from mnemo.recall.time_bounds import FORMS
from mnemo.serve.api_keys import KeyStore
from tests.serve.test_api import start_server
from tests.support import Workspace


@pytest.fixture(scope="module")
def served(assist_workspace: Workspace) -> Iterator[tuple[str, dict[str, str]]]:
    _, key = KeyStore(assist_workspace.config.data_dir).create("test", "times")
    proc, url = start_server(str(assist_workspace.config_path))
    yield url, {"Authorization": f"Bearer {key}"}
    proc.terminate()
    proc.wait(timeout=10)


MALFORMED = ["notadate", "20261101", "2026-W44", "2026-13", "2026-02-30", "2026-11-01 10:00", "yesterday"]


@pytest.mark.parametrize(("route", "query"), [("/v1/test/recall", {"q": "Dana"}), ("/v1/test/timeline", {})])
@pytest.mark.parametrize("name", ["since", "until"])
@pytest.mark.parametrize("value", MALFORMED)
def test_a_time_that_is_not_an_extended_iso_date_is_400_naming_the_parameter(
    served: tuple[str, dict[str, str]], route: str, query: dict[str, str], name: str, value: str,
) -> None:
    url, headers = served
    answer = httpx.get(f"{url}{route}", params={**query, name: value}, headers=headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["detail"] == f"{name} {value!r} is not a date or time: use {FORMS}"


@pytest.mark.parametrize(("route", "query"), [("/v1/test/recall", {"q": "Dana"}), ("/v1/test/timeline", {})])
def test_since_after_until_is_400(served: tuple[str, dict[str, str]], route: str, query: dict[str, str]) -> None:
    url, headers = served
    answer = httpx.get(f"{url}{route}", params={**query, "since": "2026-11-02", "until": "2026-11-01"}, headers=headers)
    assert answer.status_code == 400
    assert answer.json()["detail"] == "since 2026-11-02 is after until 2026-11-01: nothing could match"


@pytest.mark.parametrize("value", ["2026", "2026-09", "2026-09-01", "2026-09-01T18:00", "2026-09-01T18:00:00+02:00"])
def test_iso_dates_and_times_are_accepted(served: tuple[str, dict[str, str]], value: str) -> None:
    url, headers = served
    assert httpx.get(f"{url}/v1/test/recall", params={"q": "Dana", "since": value}, headers=headers).status_code == 200
    assert httpx.get(f"{url}/v1/test/timeline", params={"until": value}, headers=headers).status_code == 200
