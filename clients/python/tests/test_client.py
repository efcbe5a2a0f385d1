"""The Python client against a real `syncworker serve`: update and watch, a watch that survives cut
connections without repeating or losing a snapshot, errors as typed exceptions, and pause, resume and cancel."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, List, Optional

import grpc
import pytest
from google.rpc import error_details_pb2

from conftest import Proxy, payload
from syncworker_client import (
    Client,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    SyncWorkerError,
    SyncWorkerStatus,
    UnavailableError,
    is_complete,
)


def watch_until_complete(client: Client, version: str, on_status: Optional[Callable[[SyncWorkerStatus], None]] = None,
                         timeout: float = 60.0) -> List[SyncWorkerStatus]:
    seen: List[SyncWorkerStatus] = []
    # The watch's own deadline also ends a stream that stalls without a status, not only a slow sync.
    for status in client.watch(timeout=timeout):
        seen.append(status)
        if on_status:
            on_status(status)
        if is_complete(status, version):
            return seen
    raise AssertionError("watch ended")


def assert_strictly_increasing(seen: List[SyncWorkerStatus]) -> None:
    revisions = [s.revision for s in seen]
    assert all(b > a for a, b in zip(revisions, revisions[1:])), f"revisions repeat or go back: {revisions}"


def test_update_watch_to_completion_get_status(server_address: str) -> None:
    with Client(server_address, timeout=10) as client:
        accepted = client.update(payload("1.0.0"), "1.0.0", generation=1)
        assert accepted.generation == 1
        seen = watch_until_complete(client, "1.0.0")
        assert_strictly_increasing(seen)
        status = client.get_status()
        assert is_complete(status, "1.0.0")
        assert status.revision >= seen[-1].revision
        assert client.notify("test: configmap changed") is True


def test_watch_resumes_after_cut(server_address: str, proxy: Proxy) -> None:
    with Client(proxy.address, timeout=10) as client, Client(server_address) as direct:
        client.update(payload("1.0.0"), "1.0.0")
        watch_until_complete(client, "1.0.0")
        start = client.get_status()
        client.update(payload("1.1.0"), "1.1.0")
        cuts = 0

        def cut_mid_sync(status: SyncWorkerStatus) -> None:
            nonlocal cuts
            if cuts < 2 and status.revision > start.revision and not is_complete(status, "1.1.0"):
                cuts += 1
                proxy.cut()

        seen = watch_until_complete(client, "1.1.0", cut_mid_sync)
        assert cuts >= 1, "the sync finished before the watch could be cut; slow the embedded operators down"
        assert proxy.accepted >= 2, "the watch did not reconnect through the proxy"
        assert_strictly_increasing(seen)
        # With a long reconcile interval nothing is published after completion: the watch ended on the latest.
        assert direct.get_status().revision == seen[-1].revision


def test_errors_are_typed_with_code_and_details(server_address: str) -> None:
    with Client(server_address, timeout=10) as client:
        with pytest.raises(InvalidArgumentError) as invalid:
            client.update("")
        assert invalid.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert [v.field for v in invalid.value.field_violations] == ["desired.image"]
        assert isinstance(invalid.value, SyncWorkerError)

        # An idle server publishes nothing after its current revision, so only the deadline can end this watch.
        current = client.get_status().revision
        with pytest.raises(DeadlineExceededError):
            for _ in client.watch(since_revision=current, timeout=0.5):
                pass

    with Client("127.0.0.1:1", timeout=5) as unreachable:
        with pytest.raises(UnavailableError):
            unreachable.get_status()


def wait_for(client: Client, what: str, ok: Callable[[SyncWorkerStatus], bool], timeout: float = 180.0) -> SyncWorkerStatus:
    for status in client.watch(timeout=timeout):
        if ok(status):
            return status
    raise AssertionError(f"the watch ended before {what}")


def operator_delay_args(_: Path) -> List[str]:
    # Operators take 5s to report, so an update stays mid-apply long enough to be cancelled, even on a loaded machine.
    return ["--operator-delay", "5s"]


@pytest.mark.parametrize("server_address", [operator_delay_args], indirect=True)
def test_pause_resume_cancel(server_address: str) -> None:
    with Client(server_address, timeout=30) as client:
        client.update(payload("1.0.0"), "1.0.0")
        wait_for(client, "1.0.0 completely applied", lambda s: is_complete(s, "1.0.0"))

        paused = client.pause_update("change window")
        assert paused.pause.paused and paused.pause.reason == "change window"
        with pytest.raises(FailedPreconditionError) as again:
            client.pause_update("again")
        assert again.value.code == grpc.StatusCode.FAILED_PRECONDITION

        # Paused, an update is accepted and held before its first task; cancelling it keeps the release in effect.
        client.update(payload("1.1.0"), "1.1.0")
        wait_for(client, "the update to 1.1.0 held by the pause", lambda s: s.pause.update_pending)
        assert client.cancel_update().rollback_started is False
        status = client.get_status()
        assert status.actual.version == "1.0.0"
        assert status.load_payload_status.update.version == "1.0.0"
        assert not status.pause.update_pending

        resumed = client.resume_update()
        assert not resumed.pause.paused
        with pytest.raises(FailedPreconditionError):
            client.resume_update()
        wait_for(client, "1.0.0 completely applied after resuming", lambda s: is_complete(s, "1.0.0"))

        # Once applying started, a cancel without rollback is refused, naming what was applied.
        client.update(payload("1.1.0"), "1.1.0")
        wait_for(client, "the update to 1.1.0 applying", lambda s: s.actual.version == "1.1.0" and s.done > 0)
        with pytest.raises(FailedPreconditionError, match="has started applying") as refused:
            client.cancel_update()
        assert [d.reason for d in refused.value.details if isinstance(d, error_details_pb2.ErrorInfo)] == ["ApplyStarted"]
        wait_for(client, "1.1.0 completely applied", lambda s: is_complete(s, "1.1.0"))
