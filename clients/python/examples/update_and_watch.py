"""Updates a syncworker to a payload and watches until the sync completes; the last line is ``completed N/N``.

    python examples/update_and_watch.py --address 127.0.0.1:50051 --image /abs/payload --version 1.0.0
"""

import argparse
import os
import sys

from syncworker_client import Client, SyncWorkerError, is_complete


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:50051")
    parser.add_argument("--image", required=True, help="payload directory")
    parser.add_argument("--version", default="", help="expected release version (empty: any)")
    args = parser.parse_args()
    try:
        with Client(args.address) as client:
            # The server resolves the payload path itself, so send it absolute.
            accepted = client.update(os.path.abspath(args.image), args.version)
            print(f"update accepted at revision {accepted.revision}", flush=True)
            for status in client.watch():
                if is_complete(status, args.version):
                    print(f"completed {status.done}/{status.total}")
                    return 0
                print(f"revision {status.revision}: {status.message}", flush=True)
    except SyncWorkerError as err:
        print(f"update_and_watch: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 1


if __name__ == "__main__":
    sys.exit(main())
