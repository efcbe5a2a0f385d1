"""Typed exceptions: every failure of a client call is a SyncWorkerError carrying the gRPC code and details."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Type

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


class SyncWorkerError(Exception):
    """A failed call: ``code`` (grpc.StatusCode), the server's ``message`` and its google.rpc ``details``
    (BadRequest, ErrorInfo, ... as protobuf messages). Catch a subclass for one code, this class for all."""

    def __init__(self, code: grpc.StatusCode, message: str, details: Optional[List[Any]] = None) -> None:
        super().__init__(f"[{code.name}] {message}")
        self.code = code
        self.message = message
        self.details: List[Any] = details or []

    @property
    def field_violations(self) -> List[error_details_pb2.BadRequest.FieldViolation]:
        """The fields a google.rpc.BadRequest detail names, e.g. ``desired.image``."""
        return [v for d in self.details if isinstance(d, error_details_pb2.BadRequest) for v in d.field_violations]


class InvalidArgumentError(SyncWorkerError):
    """The request was rejected by validation; see ``field_violations``."""


class UnavailableError(SyncWorkerError):
    """The server could not be reached, or the connection dropped."""


class DeadlineExceededError(SyncWorkerError):
    """The call's timeout passed before the server answered."""


class CancelledError(SyncWorkerError):
    """The call was cancelled, by the client or the server."""


class UnauthenticatedError(SyncWorkerError):
    """The call carried no credentials the server accepts: a client certificate or a bearer token."""


class PermissionDeniedError(SyncWorkerError):
    """The caller is known but may not make this call, e.g. a reader calling ``update``."""


class FailedPreconditionError(SyncWorkerError):
    """The request contradicts where the worker stands, e.g. pausing while paused or cancelling an update that has
    started applying; the ErrorInfo detail's ``reason`` says which."""


class NotFoundError(SyncWorkerError):
    """What the call names does not exist, e.g. the rollout of ``watch_fleet``."""


class InternalError(SyncWorkerError):
    """The server failed; its message says how (never a stack trace)."""


_BY_CODE: Dict[grpc.StatusCode, Type[SyncWorkerError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.CANCELLED: CancelledError,
    grpc.StatusCode.INTERNAL: InternalError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
}

_DETAIL_TYPES = (error_details_pb2.BadRequest, error_details_pb2.ErrorInfo)

# Codes after which a watch reconnects: the connection or the server went away, the request was fine.
TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.ABORTED})


def from_rpc_error(err: grpc.RpcError) -> SyncWorkerError:
    """Turns what grpcio raises (a grpc.Call that is also an RpcError) into the typed exception."""
    call: Any = err
    code = call.code() if hasattr(call, "code") else grpc.StatusCode.UNKNOWN
    message = call.details() if hasattr(call, "details") else str(err)
    details: List[Any] = []
    try:
        status = rpc_status.from_call(call)
    except (ValueError, AttributeError):
        # A status whose details disagree with the call's code: keep the code and message, drop the details.
        status = None
    for any_detail in status.details if status else []:
        for cls in _DETAIL_TYPES:
            if any_detail.Is(cls.DESCRIPTOR):
                detail = cls()
                any_detail.Unpack(detail)
                details.append(detail)
                break
        else:
            details.append(any_detail)
    error = _BY_CODE.get(code, SyncWorkerError)(code, message or "", details)
    error.__cause__ = err
    return error
