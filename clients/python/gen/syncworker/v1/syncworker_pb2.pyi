import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PayloadState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYLOAD_STATE_UNSPECIFIED: _ClassVar[PayloadState]
    PAYLOAD_STATE_INITIALIZING: _ClassVar[PayloadState]
    PAYLOAD_STATE_UPDATING: _ClassVar[PayloadState]
    PAYLOAD_STATE_RECONCILING: _ClassVar[PayloadState]

class UpdateEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UPDATE_EFFECT_UNSPECIFIED: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_REPORT: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_NONE: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_FAIL_AFTER_INTERVAL: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_FAIL: _ClassVar[UpdateEffect]
PAYLOAD_STATE_UNSPECIFIED: PayloadState
PAYLOAD_STATE_INITIALIZING: PayloadState
PAYLOAD_STATE_UPDATING: PayloadState
PAYLOAD_STATE_RECONCILING: PayloadState
UPDATE_EFFECT_UNSPECIFIED: UpdateEffect
UPDATE_EFFECT_REPORT: UpdateEffect
UPDATE_EFFECT_NONE: UpdateEffect
UPDATE_EFFECT_FAIL_AFTER_INTERVAL: UpdateEffect
UPDATE_EFFECT_FAIL: UpdateEffect

class DesiredUpdate(_message.Message):
    __slots__ = ("version", "image", "force")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    version: str
    image: str
    force: bool
    def __init__(self, version: _Optional[str] = ..., image: _Optional[str] = ..., force: _Optional[bool] = ...) -> None: ...

class ComponentOverride(_message.Message):
    __slots__ = ("kind", "group", "namespace", "name", "unmanaged")
    KIND_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UNMANAGED_FIELD_NUMBER: _ClassVar[int]
    kind: str
    group: str
    namespace: str
    name: str
    unmanaged: bool
    def __init__(self, kind: _Optional[str] = ..., group: _Optional[str] = ..., namespace: _Optional[str] = ..., name: _Optional[str] = ..., unmanaged: _Optional[bool] = ...) -> None: ...

class CapabilitiesSpec(_message.Message):
    __slots__ = ("baseline_capability_set", "additional_enabled_capabilities")
    BASELINE_CAPABILITY_SET_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_ENABLED_CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    baseline_capability_set: str
    additional_enabled_capabilities: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, baseline_capability_set: _Optional[str] = ..., additional_enabled_capabilities: _Optional[_Iterable[str]] = ...) -> None: ...

class UpdateRequest(_message.Message):
    __slots__ = ("generation", "desired", "overrides", "capabilities", "state")
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    DESIRED_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    generation: int
    desired: DesiredUpdate
    overrides: _containers.RepeatedCompositeFieldContainer[ComponentOverride]
    capabilities: CapabilitiesSpec
    state: PayloadState
    def __init__(self, generation: _Optional[int] = ..., desired: _Optional[_Union[DesiredUpdate, _Mapping]] = ..., overrides: _Optional[_Iterable[_Union[ComponentOverride, _Mapping]]] = ..., capabilities: _Optional[_Union[CapabilitiesSpec, _Mapping]] = ..., state: _Optional[_Union[PayloadState, str]] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ...) -> None: ...

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetStatusResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ...) -> None: ...

class StatusWatchRequest(_message.Message):
    __slots__ = ("since_revision",)
    SINCE_REVISION_FIELD_NUMBER: _ClassVar[int]
    since_revision: int
    def __init__(self, since_revision: _Optional[int] = ...) -> None: ...

class StatusWatchResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ...) -> None: ...

class NotifyResourceActivityRequest(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class NotifyResourceActivityResponse(_message.Message):
    __slots__ = ("queued",)
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    queued: bool
    def __init__(self, queued: _Optional[bool] = ...) -> None: ...

class Failure(_message.Message):
    __slots__ = ("reason", "message", "effect", "names")
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    reason: str
    message: str
    effect: UpdateEffect
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, reason: _Optional[str] = ..., message: _Optional[str] = ..., effect: _Optional[_Union[UpdateEffect, str]] = ..., names: _Optional[_Iterable[str]] = ...) -> None: ...

class Release(_message.Message):
    __slots__ = ("version", "image", "url", "channels")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    version: str
    image: str
    url: str
    channels: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, version: _Optional[str] = ..., image: _Optional[str] = ..., url: _Optional[str] = ..., channels: _Optional[_Iterable[str]] = ...) -> None: ...

class LoadPayloadStatus(_message.Message):
    __slots__ = ("step", "message", "failure", "update", "verified", "last_transition_time")
    STEP_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    step: str
    message: str
    failure: Failure
    update: DesiredUpdate
    verified: bool
    last_transition_time: _timestamp_pb2.Timestamp
    def __init__(self, step: _Optional[str] = ..., message: _Optional[str] = ..., failure: _Optional[_Union[Failure, _Mapping]] = ..., update: _Optional[_Union[DesiredUpdate, _Mapping]] = ..., verified: _Optional[bool] = ..., last_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CapabilitiesStatus(_message.Message):
    __slots__ = ("enabled", "known", "implicitly_enabled")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    KNOWN_FIELD_NUMBER: _ClassVar[int]
    IMPLICITLY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    enabled: _containers.RepeatedScalarFieldContainer[str]
    known: _containers.RepeatedScalarFieldContainer[str]
    implicitly_enabled: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, enabled: _Optional[_Iterable[str]] = ..., known: _Optional[_Iterable[str]] = ..., implicitly_enabled: _Optional[_Iterable[str]] = ...) -> None: ...

class SyncWorkerStatus(_message.Message):
    __slots__ = ("generation", "failure", "done", "total", "completed", "reconciling", "initial", "version_hash", "architecture", "last_progress", "actual", "verified", "load_payload_status", "capabilities_status", "revision", "message", "published_at", "conditions", "history")
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    RECONCILING_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FIELD_NUMBER: _ClassVar[int]
    VERSION_HASH_FIELD_NUMBER: _ClassVar[int]
    ARCHITECTURE_FIELD_NUMBER: _ClassVar[int]
    LAST_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    ACTUAL_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    LOAD_PAYLOAD_STATUS_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_STATUS_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PUBLISHED_AT_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    generation: int
    failure: Failure
    done: int
    total: int
    completed: int
    reconciling: bool
    initial: bool
    version_hash: str
    architecture: str
    last_progress: _timestamp_pb2.Timestamp
    actual: Release
    verified: bool
    load_payload_status: LoadPayloadStatus
    capabilities_status: CapabilitiesStatus
    revision: int
    message: str
    published_at: _timestamp_pb2.Timestamp
    conditions: _containers.RepeatedCompositeFieldContainer[Condition]
    history: _containers.RepeatedCompositeFieldContainer[UpdateHistory]
    def __init__(self, generation: _Optional[int] = ..., failure: _Optional[_Union[Failure, _Mapping]] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., completed: _Optional[int] = ..., reconciling: _Optional[bool] = ..., initial: _Optional[bool] = ..., version_hash: _Optional[str] = ..., architecture: _Optional[str] = ..., last_progress: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., actual: _Optional[_Union[Release, _Mapping]] = ..., verified: _Optional[bool] = ..., load_payload_status: _Optional[_Union[LoadPayloadStatus, _Mapping]] = ..., capabilities_status: _Optional[_Union[CapabilitiesStatus, _Mapping]] = ..., revision: _Optional[int] = ..., message: _Optional[str] = ..., published_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., conditions: _Optional[_Iterable[_Union[Condition, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[UpdateHistory, _Mapping]]] = ...) -> None: ...

class Condition(_message.Message):
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

class UpdateHistory(_message.Message):
    __slots__ = ("state", "version", "image", "verified", "started_time", "completion_time")
    STATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    STARTED_TIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_FIELD_NUMBER: _ClassVar[int]
    state: str
    version: str
    image: str
    verified: bool
    started_time: _timestamp_pb2.Timestamp
    completion_time: _timestamp_pb2.Timestamp
    def __init__(self, state: _Optional[str] = ..., version: _Optional[str] = ..., image: _Optional[str] = ..., verified: _Optional[bool] = ..., started_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completion_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
