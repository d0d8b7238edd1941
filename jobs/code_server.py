"""The code server of `mnemo up`: waiting until it has loaded mnemo's definitions, and asking it to
load them anew. `mnemo up` runs this as a short process of its own, so that its long-running
process imports no Dagster:

    python -m mnemo_dagster.jobs.code_server wait PORT [SECONDS]    exit 0 once loaded; 2 (and why) if not
    python -m mnemo_dagster.jobs.code_server reload PORT [SECONDS]  exit 0 once the definitions are loaded anew
"""

import sys
import time

from dagster._grpc.client import DagsterGrpcClient
from dagster._serdes import deserialize_value
from dagster._utils.error import SerializableErrorInfo

HOST = "127.0.0.1"
POLL_SECONDS = 0.5


def wait(client: DagsterGrpcClient, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = deserialize_value(client.list_repositories())
        except Exception:  # noqa: BLE001  # not listening yet, or its child still starting: ask again
            answer = None
        if isinstance(answer, SerializableErrorInfo):
            print(answer.to_string()[-2000:], file=sys.stderr)
            return 2
        if answer is not None:
            return 0
        if time.monotonic() > deadline:
            print(f"the definitions were not loaded in {seconds:.0f} s", file=sys.stderr)
            return 2
        time.sleep(POLL_SECONDS)


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or argv[0] not in ("wait", "reload") or not argv[1].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    client = DagsterGrpcClient(port=int(argv[1]), host=HOST)
    seconds = float(argv[2]) if len(argv) == 3 else 300.0
    if argv[0] == "reload":
        try:
            client.reload_code(timeout=int(seconds))
        except Exception as exc:  # noqa: BLE001  # said to the caller, which keeps running
            print(str(exc)[-2000:], file=sys.stderr)
            return 2
    return wait(client, seconds)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
