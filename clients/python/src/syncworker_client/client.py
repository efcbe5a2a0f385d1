"""A thin, blocking client for syncworker: one method per RPC plus a watch that resumes after drops."""

from __future__ import annotations

import time
from contextlib import closing
from typing import Any, Callable, Dict, Iterable, Iterator, MutableMapping, Optional

import grpc

from syncworker.v1 import fleet_pb2 as fleet_pb
from syncworker.v1 import fleet_pb2_grpc as fleet_pb_grpc
from syncworker.v1 import syncworker_pb2 as pb
from syncworker.v1 import syncworker_pb2_grpc as pb_grpc

from .errors import TRANSIENT, SyncWorkerError, from_rpc_error


class Client:
    """Talks to one syncworker server. ``timeout`` (seconds) is the default deadline of unary calls.

    Plaintext by default, as the service listens on loopback or behind a mesh. TLS: ``root_certificates`` (PEM
    bytes; default the system's roots), ``private_key`` and ``certificate_chain`` for a server that requires a
    client certificate, ``server_name`` when its certificate names another host than ``address``; ``tls=True``
    alone trusts the system's roots. ``credentials`` takes the place of all of these. ``token`` is sent with every
    call as ``authorization: Bearer <token>``. Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        address: str,
        *,
        timeout: float = 30.0,
        credentials: Optional[grpc.ChannelCredentials] = None,
        tls: bool = False,
        root_certificates: Optional[bytes] = None,
        private_key: Optional[bytes] = None,
        certificate_chain: Optional[bytes] = None,
        server_name: Optional[str] = None,
        token: Optional[str] = None,
    ) -> None:
        if (private_key is None) != (certificate_chain is None):
            raise ValueError("private_key and certificate_chain go together")
        if credentials is None and (tls or root_certificates or certificate_chain or server_name):
            credentials = grpc.ssl_channel_credentials(root_certificates, private_key, certificate_chain)
        options = [("grpc.ssl_target_name_override", server_name)] if server_name else []
        self._channel = grpc.secure_channel(address, credentials, options) if credentials else grpc.insecure_channel(address)
        self._stub = pb_grpc.SyncWorkerStub(self._channel)
        self._fleet = fleet_pb_grpc.FleetStub(self._channel)
        self._timeout = timeout
        # Metadata rather than call credentials, which grpcio refuses on a plaintext channel.
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    def update(
        self,
        image: str,
        version: str = "",
        *,
        generation: int = 0,
        force: bool = False,
        overrides: Iterable[pb.ComponentOverride] = (),
        capabilities: Optional[pb.CapabilitiesSpec] = None,
        state: int = pb.PAYLOAD_STATE_UNSPECIFIED,
        timeout: Optional[float] = None,
    ) -> pb.SyncWorkerStatus:
        """Sets the desired release; returns the worker's status right after it took the request."""
        request = pb.UpdateRequest(
            generation=generation,
            desired=pb.DesiredUpdate(image=image, version=version, force=force),
            overrides=list(overrides),
            capabilities=capabilities,
            state=state,
        )
        return self._unary(self._stub.Update, request, timeout).status

    def get_status(self, *, timeout: Optional[float] = None) -> pb.SyncWorkerStatus:
        return self._unary(self._stub.GetStatus, pb.GetStatusRequest(), timeout).status

    def pause_update(self, reason: str = "", *, timeout: Optional[float] = None) -> pb.SyncWorkerStatus:
        """Holds the update at a task boundary: running attempts finish, no new task starts, the position is kept
        (across restarts too). Returns the status showing the pause; FailedPreconditionError when already paused."""
        return self._unary(self._stub.PauseUpdate, pb.PauseUpdateRequest(reason=reason), timeout).status

    def resume_update(self, *, timeout: Optional[float] = None) -> pb.SyncWorkerStatus:
        """Continues a paused update from where it stood; FailedPreconditionError when not paused."""
        return self._unary(self._stub.ResumeUpdate, pb.ResumeUpdateRequest(), timeout).status

    def cancel_update(self, rollback: bool = False, *, timeout: Optional[float] = None) -> pb.CancelUpdateResponse:
        """Drops the desired release while none of it was applied; the release in effect stays. Once applying
        started, FailedPreconditionError (ErrorInfo reason ``ApplyStarted``) naming what was applied, unless
        ``rollback``: then an update back to the last completed release of the same minor version starts. Returns
        the status after it and ``rollback_started``, whether a rollback started rather than a drop."""
        return self._unary(self._stub.CancelUpdate, pb.CancelUpdateRequest(rollback=rollback), timeout)

    def notify(self, message: str, *, timeout: Optional[float] = None) -> bool:
        """Wakes the worker early; False when a notification was already pending and this one coalesced."""
        return self._unary(self._stub.NotifyResourceActivity, pb.NotifyResourceActivityRequest(message=message), timeout).queued

    def watch(
        self,
        since_revision: int = 0,
        *,
        timeout: Optional[float] = None,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> Iterator[pb.SyncWorkerStatus]:
        """Yields every status snapshot after ``since_revision``, forever.

        A dropped stream is reopened (backing off from ``initial_backoff`` to ``max_backoff`` seconds) with
        since_revision set to the last revision yielded, so no snapshot is yielded twice; the server may
        coalesce intermediate snapshots, never the latest. Stop by breaking out of the loop (the stream is
        cancelled), when ``timeout`` seconds have passed in all (DeadlineExceededError; None waits forever), or
        on a non-transient error, raised as a SyncWorkerError.
        """
        last = since_revision

        def start(remaining: Optional[float]) -> Any:
            return self._stub.StatusWatch(pb.StatusWatchRequest(since_revision=last), timeout=remaining, metadata=self._metadata)

        # closing: breaking off this generator closes the inner one, which cancels the stream.
        with closing(_reconnecting(start, timeout, initial_backoff, max_backoff)) as responses:
            for response in responses:
                status = response.status
                # The server filters by since_revision already; this guard keeps the promise regardless.
                if status.revision <= last:
                    continue
                last = status.revision
                yield status

    def watch_fleet(
        self,
        rollout: str,
        namespace: str = "",
        cursors: Optional[MutableMapping[str, int]] = None,
        full_status: bool = False,
        *,
        timeout: Optional[float] = None,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> Iterator[fleet_pb.FleetWatchResponse]:
        """Follows ``rollout`` on the fleet's hub (service syncworker.v1.Fleet, ``syncworker fleet``; connect this
        client to the hub's address): yields FleetWatchResponse events, forever.

        On each connect the rollout's view, the member views the cursors do not cover, then ``synced`` (yielded after
        every connect's burst), then one event per change. ``cursors`` maps each member to the last revision seen
        (``MemberView.revision``); it is kept current in place, so a dict passed in always says where a later
        ``watch_fleet`` resumes. A dropped stream is reopened (backing off from ``initial_backoff`` to
        ``max_backoff`` seconds) with those cursors, so the server sends only what changed meanwhile. Nothing is
        yielded twice in a row: a member view equal to the last one yielded for that member (its status aside, which
        its revision stands for), or a rollout view equal to the last one, is skipped; a view at an unchanged
        revision whose state changed (the hub found the member unavailable) is yielded. ``full_status`` also carries
        each member's SyncWorkerStatus. Stop by breaking out of the loop, after ``timeout`` seconds in all
        (DeadlineExceededError), or on a non-transient error (NotFoundError: no such rollout).
        """
        kept: MutableMapping[str, int] = {} if cursors is None else cursors
        last_rollout: Optional[fleet_pb.RolloutView] = None
        last_views: Dict[str, fleet_pb.MemberView] = {}

        def start(remaining: Optional[float]) -> Any:
            request = fleet_pb.FleetWatchRequest(
                namespace=namespace,
                rollout=rollout,
                full_status=full_status,
                cursors=[fleet_pb.MemberCursor(member=m, revision=r) for m, r in sorted(kept.items())],
            )
            return self._fleet.FleetWatch(request, timeout=remaining, metadata=self._metadata)

        with closing(_reconnecting(start, timeout, initial_backoff, max_backoff)) as responses:
            for response in responses:
                event = response.WhichOneof("event")
                if event == "rollout":
                    if last_rollout is not None and last_rollout == response.rollout:
                        continue
                    last_rollout = fleet_pb.RolloutView()
                    last_rollout.CopyFrom(response.rollout)
                elif event == "member":
                    view = fleet_pb.MemberView()
                    view.CopyFrom(response.member)
                    view.ClearField("status")
                    if last_views.get(view.member) == view:
                        continue
                    last_views[view.member] = view
                    # Lower than the cursor too: the member's state was wiped, and its revisions start again.
                    kept[view.member] = view.revision
                elif event != "synced":
                    # An event of a newer contract this client does not know.
                    continue
                yield response

    def _unary(self, method, request, timeout: Optional[float]):  # type: ignore[no-untyped-def]
        try:
            return method(request, timeout=self._timeout if timeout is None else timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from err


def _reconnecting(
    start: Callable[[Optional[float]], Any], timeout: Optional[float], initial_backoff: float, max_backoff: float
) -> Iterator[Any]:
    """The responses of a server stream that ``start(remaining)`` opens again after each drop, forever: after a
    transient error or a clean end (the server shutting down) it waits, backing off from ``initial_backoff`` to
    ``max_backoff`` seconds (back to the first once a message arrives), and calls ``start`` again, which builds the
    request from what the caller has seen. Every attempt gets what is left of ``timeout`` (None: no deadline), so
    reconnects cannot extend it. A non-transient error is raised as a SyncWorkerError; breaking off cancels the
    stream."""
    wait = initial_backoff
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        call = start(remaining)
        try:
            for response in call:
                wait = initial_backoff
                yield response
            # A clean end means the server is shutting down: reconnect as after a drop.
        except grpc.RpcError as err:
            error = from_rpc_error(err)
            if error.code not in TRANSIENT:
                raise error from err
        finally:
            call.cancel()
        time.sleep(wait)
        wait = min(wait * 2, max_backoff)


def is_complete(status: pb.SyncWorkerStatus, version: str = "") -> bool:
    """True when ``status`` shows ``version`` (or, if empty, any version) completely applied without failure."""
    return (
        status.completed >= 1
        and not status.HasField("failure")
        and not status.load_payload_status.HasField("failure")
        and status.done == status.total
        and (version == "" or status.actual.version == version)
    )


__all__ = ["Client", "SyncWorkerError", "is_complete"]
