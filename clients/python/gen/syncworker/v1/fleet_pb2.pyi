import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from syncworker.v1 import syncworker_pb2 as _syncworker_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MemberState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMBER_STATE_UNSPECIFIED: _ClassVar[MemberState]
    MEMBER_STATE_PENDING: _ClassVar[MemberState]
    MEMBER_STATE_STARTING: _ClassVar[MemberState]
    MEMBER_STATE_UPDATING: _ClassVar[MemberState]
    MEMBER_STATE_PAUSED: _ClassVar[MemberState]
    MEMBER_STATE_SUCCEEDED: _ClassVar[MemberState]
    MEMBER_STATE_FAILED: _ClassVar[MemberState]
    MEMBER_STATE_UNAVAILABLE: _ClassVar[MemberState]
    MEMBER_STATE_BLOCKED: _ClassVar[MemberState]
    MEMBER_STATE_CANCELLED: _ClassVar[MemberState]
MEMBER_STATE_UNSPECIFIED: MemberState
MEMBER_STATE_PENDING: MemberState
MEMBER_STATE_STARTING: MemberState
MEMBER_STATE_UPDATING: MemberState
MEMBER_STATE_PAUSED: MemberState
MEMBER_STATE_SUCCEEDED: MemberState
MEMBER_STATE_FAILED: MemberState
MEMBER_STATE_UNAVAILABLE: MemberState
MEMBER_STATE_BLOCKED: MemberState
MEMBER_STATE_CANCELLED: MemberState

class FleetWatchRequest(_message.Message):
    __slots__ = ("namespace", "rollout", "cursors", "full_status")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    ROLLOUT_FIELD_NUMBER: _ClassVar[int]
    CURSORS_FIELD_NUMBER: _ClassVar[int]
    FULL_STATUS_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    rollout: str
    cursors: _containers.RepeatedCompositeFieldContainer[MemberCursor]
    full_status: bool
    def __init__(self, namespace: _Optional[str] = ..., rollout: _Optional[str] = ..., cursors: _Optional[_Iterable[_Union[MemberCursor, _Mapping]]] = ..., full_status: _Optional[bool] = ...) -> None: ...

class MemberCursor(_message.Message):
    __slots__ = ("member", "revision")
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    member: str
    revision: int
    def __init__(self, member: _Optional[str] = ..., revision: _Optional[int] = ...) -> None: ...

class FleetWatchResponse(_message.Message):
    __slots__ = ("rollout", "member", "synced")
    ROLLOUT_FIELD_NUMBER: _ClassVar[int]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    SYNCED_FIELD_NUMBER: _ClassVar[int]
    rollout: RolloutView
    member: MemberView
    synced: Synced
    def __init__(self, rollout: _Optional[_Union[RolloutView, _Mapping]] = ..., member: _Optional[_Union[MemberView, _Mapping]] = ..., synced: _Optional[_Union[Synced, _Mapping]] = ...) -> None: ...

class Synced(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RolloutView(_message.Message):
    __slots__ = ("name", "observed_generation", "phase", "current_stage", "stages", "counts", "conditions", "pinned_image", "release_version", "stage_summary")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OBSERVED_GENERATION_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_STAGE_FIELD_NUMBER: _ClassVar[int]
    STAGES_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    PINNED_IMAGE_FIELD_NUMBER: _ClassVar[int]
    RELEASE_VERSION_FIELD_NUMBER: _ClassVar[int]
    STAGE_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    name: str
    observed_generation: int
    phase: str
    current_stage: str
    stages: _containers.RepeatedCompositeFieldContainer[StageView]
    counts: StateCounts
    conditions: _containers.RepeatedCompositeFieldContainer[RolloutCondition]
    pinned_image: str
    release_version: str
    stage_summary: str
    def __init__(self, name: _Optional[str] = ..., observed_generation: _Optional[int] = ..., phase: _Optional[str] = ..., current_stage: _Optional[str] = ..., stages: _Optional[_Iterable[_Union[StageView, _Mapping]]] = ..., counts: _Optional[_Union[StateCounts, _Mapping]] = ..., conditions: _Optional[_Iterable[_Union[RolloutCondition, _Mapping]]] = ..., pinned_image: _Optional[str] = ..., release_version: _Optional[str] = ..., stage_summary: _Optional[str] = ...) -> None: ...

class RolloutCondition(_message.Message):
    __slots__ = ("type", "status", "reason", "message", "last_transition_time")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    type: str
    status: str
    reason: str
    message: str
    last_transition_time: _timestamp_pb2.Timestamp
    def __init__(self, type: _Optional[str] = ..., status: _Optional[str] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., last_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class StageView(_message.Message):
    __slots__ = ("name", "counts", "started_at", "completed_at", "soak_until")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    SOAK_UNTIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    counts: StateCounts
    started_at: _timestamp_pb2.Timestamp
    completed_at: _timestamp_pb2.Timestamp
    soak_until: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., counts: _Optional[_Union[StateCounts, _Mapping]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., soak_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class StateCounts(_message.Message):
    __slots__ = ("total", "pending", "updating", "succeeded", "failed", "unavailable", "blocked")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    UPDATING_FIELD_NUMBER: _ClassVar[int]
    SUCCEEDED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    total: int
    pending: int
    updating: int
    succeeded: int
    failed: int
    unavailable: int
    blocked: int
    def __init__(self, total: _Optional[int] = ..., pending: _Optional[int] = ..., updating: _Optional[int] = ..., succeeded: _Optional[int] = ..., failed: _Optional[int] = ..., unavailable: _Optional[int] = ..., blocked: _Optional[int] = ...) -> None: ...

class MemberView(_message.Message):
    __slots__ = ("member", "stage", "state", "revision", "generation", "done", "total", "version", "blocker", "estimated_remaining", "last_seen", "status")
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    BLOCKER_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_REMAINING_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    member: str
    stage: str
    state: MemberState
    revision: int
    generation: int
    done: int
    total: int
    version: str
    blocker: str
    estimated_remaining: _duration_pb2.Duration
    last_seen: _timestamp_pb2.Timestamp
    status: _syncworker_pb2.SyncWorkerStatus
    def __init__(self, member: _Optional[str] = ..., stage: _Optional[str] = ..., state: _Optional[_Union[MemberState, str]] = ..., revision: _Optional[int] = ..., generation: _Optional[int] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., version: _Optional[str] = ..., blocker: _Optional[str] = ..., estimated_remaining: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., last_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[_Union[_syncworker_pb2.SyncWorkerStatus, _Mapping]] = ...) -> None: ...
