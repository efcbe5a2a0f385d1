import datetime

from google.protobuf import duration_pb2 as _duration_pb2
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

class OnDeadline(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ON_DEADLINE_UNSPECIFIED: _ClassVar[OnDeadline]
    ON_DEADLINE_FAIL: _ClassVar[OnDeadline]
    ON_DEADLINE_PAUSE: _ClassVar[OnDeadline]

class PreviewAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PREVIEW_ACTION_UNSPECIFIED: _ClassVar[PreviewAction]
    PREVIEW_ACTION_CREATE: _ClassVar[PreviewAction]
    PREVIEW_ACTION_CHANGE: _ClassVar[PreviewAction]
    PREVIEW_ACTION_UNCHANGED: _ClassVar[PreviewAction]
    PREVIEW_ACTION_DELETE: _ClassVar[PreviewAction]
    PREVIEW_ACTION_SKIPPED: _ClassVar[PreviewAction]

class UpdateEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UPDATE_EFFECT_UNSPECIFIED: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_REPORT: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_NONE: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_FAIL_AFTER_INTERVAL: _ClassVar[UpdateEffect]
    UPDATE_EFFECT_FAIL: _ClassVar[UpdateEffect]

class ComponentState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPONENT_STATE_UNSPECIFIED: _ClassVar[ComponentState]
    COMPONENT_STATE_PENDING: _ClassVar[ComponentState]
    COMPONENT_STATE_APPLYING: _ClassVar[ComponentState]
    COMPONENT_STATE_WAITING: _ClassVar[ComponentState]
    COMPONENT_STATE_DONE: _ClassVar[ComponentState]
    COMPONENT_STATE_FAILED: _ClassVar[ComponentState]
PAYLOAD_STATE_UNSPECIFIED: PayloadState
PAYLOAD_STATE_INITIALIZING: PayloadState
PAYLOAD_STATE_UPDATING: PayloadState
PAYLOAD_STATE_RECONCILING: PayloadState
ON_DEADLINE_UNSPECIFIED: OnDeadline
ON_DEADLINE_FAIL: OnDeadline
ON_DEADLINE_PAUSE: OnDeadline
PREVIEW_ACTION_UNSPECIFIED: PreviewAction
PREVIEW_ACTION_CREATE: PreviewAction
PREVIEW_ACTION_CHANGE: PreviewAction
PREVIEW_ACTION_UNCHANGED: PreviewAction
PREVIEW_ACTION_DELETE: PreviewAction
PREVIEW_ACTION_SKIPPED: PreviewAction
UPDATE_EFFECT_UNSPECIFIED: UpdateEffect
UPDATE_EFFECT_REPORT: UpdateEffect
UPDATE_EFFECT_NONE: UpdateEffect
UPDATE_EFFECT_FAIL_AFTER_INTERVAL: UpdateEffect
UPDATE_EFFECT_FAIL: UpdateEffect
COMPONENT_STATE_UNSPECIFIED: ComponentState
COMPONENT_STATE_PENDING: ComponentState
COMPONENT_STATE_APPLYING: ComponentState
COMPONENT_STATE_WAITING: ComponentState
COMPONENT_STATE_DONE: ComponentState
COMPONENT_STATE_FAILED: ComponentState

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
    __slots__ = ("generation", "desired", "overrides", "capabilities", "state", "limits", "expected_plan_digest", "accept_risks", "progress_deadline", "total_deadline", "on_deadline", "not_before")
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    DESIRED_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_PLAN_DIGEST_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_RISKS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    ON_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    NOT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    generation: int
    desired: DesiredUpdate
    overrides: _containers.RepeatedCompositeFieldContainer[ComponentOverride]
    capabilities: CapabilitiesSpec
    state: PayloadState
    limits: BlastRadiusLimits
    expected_plan_digest: str
    accept_risks: _containers.RepeatedScalarFieldContainer[str]
    progress_deadline: _duration_pb2.Duration
    total_deadline: _duration_pb2.Duration
    on_deadline: OnDeadline
    not_before: _timestamp_pb2.Timestamp
    def __init__(self, generation: _Optional[int] = ..., desired: _Optional[_Union[DesiredUpdate, _Mapping]] = ..., overrides: _Optional[_Iterable[_Union[ComponentOverride, _Mapping]]] = ..., capabilities: _Optional[_Union[CapabilitiesSpec, _Mapping]] = ..., state: _Optional[_Union[PayloadState, str]] = ..., limits: _Optional[_Union[BlastRadiusLimits, _Mapping]] = ..., expected_plan_digest: _Optional[str] = ..., accept_risks: _Optional[_Iterable[str]] = ..., progress_deadline: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., total_deadline: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., on_deadline: _Optional[_Union[OnDeadline, str]] = ..., not_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class BlastRadiusLimits(_message.Message):
    __slots__ = ("max_deletions", "max_changed_percent")
    MAX_DELETIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_CHANGED_PERCENT_FIELD_NUMBER: _ClassVar[int]
    max_deletions: int
    max_changed_percent: float
    def __init__(self, max_deletions: _Optional[int] = ..., max_changed_percent: _Optional[float] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ...) -> None: ...

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetStatusResponse(_message.Message):
    __slots__ = ("status", "server_version")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    server_version: str
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ..., server_version: _Optional[str] = ...) -> None: ...

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

class PreviewRequest(_message.Message):
    __slots__ = ("desired", "overrides", "capabilities", "limits")
    DESIRED_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    desired: DesiredUpdate
    overrides: _containers.RepeatedCompositeFieldContainer[ComponentOverride]
    capabilities: CapabilitiesSpec
    limits: BlastRadiusLimits
    def __init__(self, desired: _Optional[_Union[DesiredUpdate, _Mapping]] = ..., overrides: _Optional[_Iterable[_Union[ComponentOverride, _Mapping]]] = ..., capabilities: _Optional[_Union[CapabilitiesSpec, _Mapping]] = ..., limits: _Optional[_Union[BlastRadiusLimits, _Mapping]] = ...) -> None: ...

class ObjectPreview(_message.Message):
    __slots__ = ("action", "group", "kind", "namespace", "name", "diff", "skipped_reason", "file")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_REASON_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    action: PreviewAction
    group: str
    kind: str
    namespace: str
    name: str
    diff: str
    skipped_reason: str
    file: str
    def __init__(self, action: _Optional[_Union[PreviewAction, str]] = ..., group: _Optional[str] = ..., kind: _Optional[str] = ..., namespace: _Optional[str] = ..., name: _Optional[str] = ..., diff: _Optional[str] = ..., skipped_reason: _Optional[str] = ..., file: _Optional[str] = ...) -> None: ...

class PreviewSummary(_message.Message):
    __slots__ = ("create", "change", "unchanged", "delete", "skipped", "plan_digest", "release", "limit_violations")
    CREATE_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    DELETE_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    PLAN_DIGEST_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_VIOLATIONS_FIELD_NUMBER: _ClassVar[int]
    create: int
    change: int
    unchanged: int
    delete: int
    skipped: int
    plan_digest: str
    release: Release
    limit_violations: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, create: _Optional[int] = ..., change: _Optional[int] = ..., unchanged: _Optional[int] = ..., delete: _Optional[int] = ..., skipped: _Optional[int] = ..., plan_digest: _Optional[str] = ..., release: _Optional[_Union[Release, _Mapping]] = ..., limit_violations: _Optional[_Iterable[str]] = ...) -> None: ...

class PreviewResponse(_message.Message):
    __slots__ = ("object", "summary")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    object: ObjectPreview
    summary: PreviewSummary
    def __init__(self, object: _Optional[_Union[ObjectPreview, _Mapping]] = ..., summary: _Optional[_Union[PreviewSummary, _Mapping]] = ...) -> None: ...

class PauseUpdateRequest(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class PauseUpdateResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ...) -> None: ...

class ResumeUpdateRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CancelUpdateRequest(_message.Message):
    __slots__ = ("rollback",)
    ROLLBACK_FIELD_NUMBER: _ClassVar[int]
    rollback: bool
    def __init__(self, rollback: _Optional[bool] = ...) -> None: ...

class CancelUpdateResponse(_message.Message):
    __slots__ = ("status", "rollback_started")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ROLLBACK_STARTED_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    rollback_started: bool
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ..., rollback_started: _Optional[bool] = ...) -> None: ...

class ResumeUpdateResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: SyncWorkerStatus
    def __init__(self, status: _Optional[_Union[SyncWorkerStatus, _Mapping]] = ...) -> None: ...

class PauseStatus(_message.Message):
    __slots__ = ("paused", "paused_by", "reason", "paused_at", "update_pending")
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    PAUSED_BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    PAUSED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_PENDING_FIELD_NUMBER: _ClassVar[int]
    paused: bool
    paused_by: str
    reason: str
    paused_at: _timestamp_pb2.Timestamp
    update_pending: bool
    def __init__(self, paused: _Optional[bool] = ..., paused_by: _Optional[str] = ..., reason: _Optional[str] = ..., paused_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_pending: _Optional[bool] = ...) -> None: ...

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
    __slots__ = ("step", "message", "failure", "update", "verified", "last_transition_time", "precondition_results", "accepted_risks")
    STEP_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    PRECONDITION_RESULTS_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_RISKS_FIELD_NUMBER: _ClassVar[int]
    step: str
    message: str
    failure: Failure
    update: DesiredUpdate
    verified: bool
    last_transition_time: _timestamp_pb2.Timestamp
    precondition_results: _containers.RepeatedCompositeFieldContainer[PreconditionResult]
    accepted_risks: str
    def __init__(self, step: _Optional[str] = ..., message: _Optional[str] = ..., failure: _Optional[_Union[Failure, _Mapping]] = ..., update: _Optional[_Union[DesiredUpdate, _Mapping]] = ..., verified: _Optional[bool] = ..., last_transition_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., precondition_results: _Optional[_Iterable[_Union[PreconditionResult, _Mapping]]] = ..., accepted_risks: _Optional[str] = ...) -> None: ...

class PreconditionResult(_message.Message):
    __slots__ = ("name", "reason", "message", "blocking", "risk", "accepted")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    BLOCKING_FIELD_NUMBER: _ClassVar[int]
    RISK_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    message: str
    blocking: bool
    risk: str
    accepted: bool
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., blocking: _Optional[bool] = ..., risk: _Optional[str] = ..., accepted: _Optional[bool] = ...) -> None: ...

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
    __slots__ = ("generation", "failure", "done", "total", "completed", "reconciling", "initial", "version_hash", "architecture", "last_progress", "actual", "verified", "load_payload_status", "capabilities_status", "revision", "message", "published_at", "conditions", "history", "components", "timing", "pause", "maintenance")
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
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    PAUSE_FIELD_NUMBER: _ClassVar[int]
    MAINTENANCE_FIELD_NUMBER: _ClassVar[int]
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
    components: _containers.RepeatedCompositeFieldContainer[ComponentProgress]
    timing: UpdateTiming
    pause: PauseStatus
    maintenance: MaintenanceHold
    def __init__(self, generation: _Optional[int] = ..., failure: _Optional[_Union[Failure, _Mapping]] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., completed: _Optional[int] = ..., reconciling: _Optional[bool] = ..., initial: _Optional[bool] = ..., version_hash: _Optional[str] = ..., architecture: _Optional[str] = ..., last_progress: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., actual: _Optional[_Union[Release, _Mapping]] = ..., verified: _Optional[bool] = ..., load_payload_status: _Optional[_Union[LoadPayloadStatus, _Mapping]] = ..., capabilities_status: _Optional[_Union[CapabilitiesStatus, _Mapping]] = ..., revision: _Optional[int] = ..., message: _Optional[str] = ..., published_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., conditions: _Optional[_Iterable[_Union[Condition, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[UpdateHistory, _Mapping]]] = ..., components: _Optional[_Iterable[_Union[ComponentProgress, _Mapping]]] = ..., timing: _Optional[_Union[UpdateTiming, _Mapping]] = ..., pause: _Optional[_Union[PauseStatus, _Mapping]] = ..., maintenance: _Optional[_Union[MaintenanceHold, _Mapping]] = ...) -> None: ...

class MaintenanceHold(_message.Message):
    __slots__ = ("reason", "until")
    REASON_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    reason: str
    until: _timestamp_pb2.Timestamp
    def __init__(self, reason: _Optional[str] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ComponentProgress(_message.Message):
    __slots__ = ("run_level", "component", "state", "done", "total", "current_object", "wait_reason", "waiting_since", "attempts", "started_at", "finished_at", "slow")
    RUN_LEVEL_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    CURRENT_OBJECT_FIELD_NUMBER: _ClassVar[int]
    WAIT_REASON_FIELD_NUMBER: _ClassVar[int]
    WAITING_SINCE_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    SLOW_FIELD_NUMBER: _ClassVar[int]
    run_level: int
    component: str
    state: ComponentState
    done: int
    total: int
    current_object: str
    wait_reason: str
    waiting_since: _timestamp_pb2.Timestamp
    attempts: int
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    slow: bool
    def __init__(self, run_level: _Optional[int] = ..., component: _Optional[str] = ..., state: _Optional[_Union[ComponentState, str]] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., current_object: _Optional[str] = ..., wait_reason: _Optional[str] = ..., waiting_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., attempts: _Optional[int] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., slow: _Optional[bool] = ...) -> None: ...

class UpdateTiming(_message.Message):
    __slots__ = ("started_at", "elapsed", "estimated_remaining", "estimate_basis")
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_REMAINING_FIELD_NUMBER: _ClassVar[int]
    ESTIMATE_BASIS_FIELD_NUMBER: _ClassVar[int]
    started_at: _timestamp_pb2.Timestamp
    elapsed: _duration_pb2.Duration
    estimated_remaining: _duration_pb2.Duration
    estimate_basis: str
    def __init__(self, started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., elapsed: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., estimated_remaining: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., estimate_basis: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("state", "version", "image", "verified", "started_time", "completion_time", "accepted_risks", "rollback")
    STATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    STARTED_TIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_RISKS_FIELD_NUMBER: _ClassVar[int]
    ROLLBACK_FIELD_NUMBER: _ClassVar[int]
    state: str
    version: str
    image: str
    verified: bool
    started_time: _timestamp_pb2.Timestamp
    completion_time: _timestamp_pb2.Timestamp
    accepted_risks: str
    rollback: bool
    def __init__(self, state: _Optional[str] = ..., version: _Optional[str] = ..., image: _Optional[str] = ..., verified: _Optional[bool] = ..., started_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completion_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., accepted_risks: _Optional[str] = ..., rollback: _Optional[bool] = ...) -> None: ...
