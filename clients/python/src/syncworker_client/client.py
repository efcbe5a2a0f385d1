"""A thin, blocking client for syncworker: one method per RPC plus a watch that resumes after drops."""

from __future__ import annotations

import time
from typing import Iterable, Iterator, Optional

import grpc

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
        last, wait = since_revision, initial_backoff
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            # Every attempt gets what is left of the overall deadline, so reconnects cannot extend it.
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            call = self._stub.StatusWatch(pb.StatusWatchRequest(since_revision=last), timeout=remaining, metadata=self._metadata)
            try:
                for response in call:
                    status = response.status
                    # The server filters by since_revision already; this guard keeps the promise regardless.
                    if status.revision <= last:
                        continue
                    last, wait = status.revision, initial_backoff
                    yield status
                # A clean end means the server is shutting down: reconnect as after a drop.
            except grpc.RpcError as err:
                error = from_rpc_error(err)
                if error.code not in TRANSIENT:
                    raise error from err
            finally:
                call.cancel()
            time.sleep(wait)
            wait = min(wait * 2, max_backoff)

    def _unary(self, method, request, timeout: Optional[float]):  # type: ignore[no-untyped-def]
        try:
            return method(request, timeout=self._timeout if timeout is None else timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from err


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
