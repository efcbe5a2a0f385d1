"""Client.watch_fleet against an in-process grpcio server of the generated Fleet service (the hub's real server is
tested with the fleet): a burst, a connection cut through the proxy, a resume that sends the client's cursors, and
what the client yields of the second burst (nothing twice, a wiped member, a change without a new revision)."""

from __future__ import annotations

import threading
from concurrent import futures
from typing import Iterator, List, Tuple

import grpc
import pytest

from conftest import Proxy
from syncworker.v1 import fleet_pb2 as fleet_pb
from syncworker.v1 import fleet_pb2_grpc as fleet_pb_grpc
from syncworker.v1 import syncworker_pb2 as pb
from syncworker_client import Client, FleetWatchResponse, NotFoundError

UPDATING, UNAVAILABLE = fleet_pb.MEMBER_STATE_UPDATING, fleet_pb.MEMBER_STATE_UNAVAILABLE


def rollout() -> FleetWatchResponse:
    view = fleet_pb.RolloutView(name="r1", observed_generation=1, phase="Progressing", current_stage="canary",
                                release_version="1.1.0", counts=fleet_pb.StateCounts(total=3, pending=2, updating=1))
    return FleetWatchResponse(rollout=view)


def member(name: str, revision: int, state: int = UPDATING) -> FleetWatchResponse:
    # With a full status, as with full_status: it is not part of what the client compares.
    return FleetWatchResponse(member=fleet_pb.MemberView(
        member=name, stage="canary", state=state, revision=revision, generation=1, done=revision, total=10, version="1.1.0",
        status=pb.SyncWorkerStatus(revision=revision, done=revision, total=10)))


SYNCED = FleetWatchResponse(synced=fleet_pb.Synced())

# Per connection, what the server sends before holding the stream open. The first connect comes with the caller's
# cursor for c, which has not changed, so is not sent; the resume after the cut: b moved on, c was wiped (its revision
# went back), and, as a sloppy server might, the rollout and a again, unchanged; after synced, a becomes unavailable
# without a new revision.
SCRIPT = [
    [rollout(), member("a", 3), member("b", 5), SYNCED, member("a", 4)],
    [rollout(), member("a", 4), member("b", 6), member("c", 1), SYNCED, member("a", 4, UNAVAILABLE)],
]


class Fleet(fleet_pb_grpc.FleetServicer):
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: List[fleet_pb.FleetWatchRequest] = []
        self.tokens: List[str] = []

    def FleetWatch(self, request: fleet_pb.FleetWatchRequest, context: grpc.ServicerContext) -> Iterator[FleetWatchResponse]:
        if request.rollout != "r1":
            context.abort(grpc.StatusCode.NOT_FOUND, f"rollout default/{request.rollout} not found")
        with self.lock:
            n = len(self.requests)
            self.requests.append(request)
            self.tokens += [v for k, v in context.invocation_metadata() if k == "authorization"]
        yield from SCRIPT[n] if n < len(SCRIPT) else [rollout()]
        done = threading.Event()
        context.add_callback(done.set)
        done.wait(30)


@pytest.fixture
def fleet() -> Iterator[Tuple[Fleet, str]]:
    servicer = Fleet()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    fleet_pb_grpc.add_FleetServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield servicer, f"127.0.0.1:{port}"
    server.stop(grace=None)


def describe(event: FleetWatchResponse) -> str:
    kind = event.WhichOneof("event")
    if kind == "rollout":
        return f"rollout {event.rollout.phase}"
    if kind == "synced":
        return "synced"
    return f"{event.member.member}@{event.member.revision}" + (" unavailable" if event.member.state == UNAVAILABLE else "")


def test_watch_fleet_resumes_from_its_cursors(fleet: Tuple[Fleet, str]) -> None:
    servicer, address = fleet
    proxy = Proxy(address)
    cursors = {"c": 2}
    seen: List[str] = []
    try:
        with Client(proxy.address, token="fleet-reader") as client:
            for event in client.watch_fleet("r1", cursors=cursors, timeout=20, initial_backoff=0.01):
                seen.append(describe(event))
                if event.HasField("member"):
                    # The cursor moves with each member view yielded.
                    assert cursors[event.member.member] == event.member.revision
                if len(seen) == 5:
                    proxy.cut()
                if event.member.state == UNAVAILABLE:
                    break
    finally:
        proxy.close()
    assert seen == ["rollout Progressing", "a@3", "b@5", "synced", "a@4", "b@6", "c@1", "synced", "a@4 unavailable"]
    assert servicer.requests == [
        fleet_pb.FleetWatchRequest(rollout="r1", cursors=[fleet_pb.MemberCursor(member="c", revision=2)]),
        # The resume carries the cursor of every member seen, and the caller's for c.
        fleet_pb.FleetWatchRequest(rollout="r1", cursors=[fleet_pb.MemberCursor(member=m, revision=r) for m, r in [("a", 4), ("b", 5), ("c", 2)]]),
    ]
    assert cursors == {"a": 4, "b": 6, "c": 1}
    assert servicer.tokens == ["Bearer fleet-reader"] * 2


def test_watch_fleet_not_found_ends_the_watch(fleet: Tuple[Fleet, str]) -> None:
    _, address = fleet
    with Client(address) as client, pytest.raises(NotFoundError) as raised:
        for event in client.watch_fleet("missing", timeout=10):
            raise AssertionError(f"an event of a missing rollout: {event}")
    assert raised.value.message == "rollout default/missing not found"
