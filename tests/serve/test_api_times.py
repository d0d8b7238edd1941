"""`since` and `until` on the HTTP API must be ISO dates or times: anything else is 422 with a
message naming the value, on a real server on 127.0.0.1."""

from collections.abc import Iterator

import httpx
import pytest

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


@pytest.mark.parametrize(("route", "query"), [("/v1/test/recall", {"q": "Dana"}), ("/v1/test/timeline", {})])
@pytest.mark.parametrize("name", ["since", "until"])
def test_a_time_that_is_not_a_date_is_422_with_a_message(
    served: tuple[str, dict[str, str]], route: str, query: dict[str, str], name: str,
) -> None:
    url, headers = served
    answer = httpx.get(f"{url}{route}", params={**query, name: "notadate"}, headers=headers)
    assert answer.status_code == 422
    [problem] = answer.json()["detail"]
    assert problem["loc"] == ["query", name] and "'notadate' is not an ISO date or time" in problem["msg"]


@pytest.mark.parametrize("value", ["2026", "2026-09", "2026-09-01", "2026-09-01T18:00", "2026-09-01T18:00:00+02:00"])
def test_iso_dates_and_times_are_accepted(served: tuple[str, dict[str, str]], value: str) -> None:
    url, headers = served
    assert httpx.get(f"{url}/v1/test/recall", params={"q": "Dana", "since": value}, headers=headers).status_code == 200
    assert httpx.get(f"{url}/v1/test/timeline", params={"until": value}, headers=headers).status_code == 200
