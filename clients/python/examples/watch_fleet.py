"""Watches a rollout on the fleet's hub: one line per member view, and once the rollout is done a last line
``rollout NAME PHASE: S/N succeeded``; exits 0 when it completed, 1 when halted or cancelled, 2 when there is no such
rollout.

    python examples/watch_fleet.py --address 127.0.0.1:50052 --rollout ocp-4-16-3
"""

import argparse
import sys

from syncworker.v1.fleet_pb2 import MemberState
from syncworker_client import Client, NotFoundError, SyncWorkerError

# The exit code of each phase a rollout ends in.
FINAL = {"Completed": 0, "Halted": 1, "Cancelled": 1}


def state_name(state: int) -> str:
    try:
        name = MemberState.Name(state)
    except ValueError:  # a state of a newer contract
        return str(state)
    return name.removeprefix("MEMBER_STATE_").lower()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:50052", help="the fleet controller's FleetWatch address")
    parser.add_argument("--rollout", required=True, help="the rollout's name")
    parser.add_argument("--namespace", default="", help="the rollout's namespace (empty: the controller's --namespace)")
    args = parser.parse_args()
    try:
        with Client(args.address) as client:
            rollout = None
            # The picture is complete once synced came: from then on, the rollout's latest view says whether it is done.
            synced = False
            for event in client.watch_fleet(args.rollout, args.namespace):
                kind = event.WhichOneof("event")
                if kind == "rollout":
                    rollout = event.rollout
                elif kind == "synced":
                    synced = True
                elif kind == "member":
                    m = event.member
                    print(f"{m.member} {m.stage} {state_name(m.state)} {m.done}/{m.total} {m.blocker}".rstrip(), flush=True)
                    continue
                if synced and rollout is not None and rollout.phase in FINAL:
                    c = rollout.counts
                    print(f"rollout {rollout.name} {rollout.phase}: {c.succeeded}/{c.total} succeeded")
                    return FINAL[rollout.phase]  # leaving the loop cancels the stream
    except NotFoundError as err:
        print(f"watch_fleet: {err}", file=sys.stderr)
        return 2
    except SyncWorkerError as err:
        print(f"watch_fleet: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 1


if __name__ == "__main__":
    sys.exit(main())
