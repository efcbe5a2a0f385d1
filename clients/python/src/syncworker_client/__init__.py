"""Python client for the syncworker gRPC service (and the fleet hub's FleetWatch). The generated messages are in
``syncworker.v1``."""

from syncworker.v1.fleet_pb2 import FleetWatchResponse, MemberView, RolloutView
from syncworker.v1.syncworker_pb2 import SyncWorkerStatus

from .client import Client, is_complete
from .errors import (
    CancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    SyncWorkerError,
    UnauthenticatedError,
    UnavailableError,
)

__all__ = [
    "Client",
    "is_complete",
    "SyncWorkerStatus",
    "FleetWatchResponse",
    "MemberView",
    "RolloutView",
    "SyncWorkerError",
    "InvalidArgumentError",
    "UnavailableError",
    "DeadlineExceededError",
    "CancelledError",
    "InternalError",
    "UnauthenticatedError",
    "PermissionDeniedError",
    "FailedPreconditionError",
    "NotFoundError",
]
