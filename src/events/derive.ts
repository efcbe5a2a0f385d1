/**
 * What happened between two published snapshots, as the events `--event-sink` receives: an update accepted or
 * refused at a load step, its apply started, a component blocked (once per wait, with its reason) or slow, the
 * update paused or resumed, failing, completed. Pure: the snapshots in, the events out, in a fixed order, so the
 * same two snapshots always give the same events. The first snapshot a process sees gives one `status` event with
 * the current state, so a consumer that missed anything (a restart, a long outage) can resynchronise.
 */
import { INSTALL_WAIT_REASONS, UpdateError } from "../core/index.js";
import type { ServiceStatus } from "../status/index.js";

/** The kinds of event, each a CloudEvent type `io.syncworker.<kind>.v1`. */
export const EVENT_KINDS = [
  "status",
  "update.accepted",
  "update.refused",
  "update.started",
  "component.blocked",
  "component.slow",
  "update.paused",
  "update.resumed",
  "update.failed",
  "update.completed",
  "leader.elected",
  "leader.lost",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** One event before it is addressed and serialised: its kind, what it is about, and its data (plain JSON). */
export interface DerivedEvent {
  readonly kind: EventKind;
  /** The component for component events, else the release's version (or image). */
  readonly subject: string;
  readonly data: Readonly<Record<string, unknown>>;
}

type Worker = ServiceStatus["worker"];

const release = (w: Worker): { version: string; image: string } => {
  const load = w.loadPayloadStatus;
  // While another release loads or was refused, it is the one the events are about (a reload of the release in
  // effect, as after a restart, names no version yet: the release in effect does).
  const update = load.step && load.step !== "PayloadLoaded" && load.update.image !== w.actual.image ? load.update : undefined;
  return update?.image ? { version: update.version, image: update.image } : { version: w.actual.version, image: w.actual.image };
};

const accepted = (w: Worker | undefined): string | undefined => {
  const load = w?.loadPayloadStatus;
  return load?.step === "PayloadLoaded" && !load.failure ? load.update.image : undefined;
};

const failing = (s: ServiceStatus | undefined) => s?.clusterVersion.conditions.find((c) => c.type === "Failing" && c.status === "True");

/**
 * What the derivation remembers beyond the previous snapshot: the history entry whose apply was told as started,
 * and what each component was told blocked on until it is done (a retry that waits on the same object is the same
 * wait, not a new one).
 */
export interface DeriveMemory {
  readonly started?: string;
  readonly blocked?: Readonly<Record<string, string>>;
}

/**
 * The update whose apply runs now, as its history entry's key: an update (not a reconcile pass) of the newest
 * entry's release with a component past Pending. Undefined otherwise.
 */
function applying(s: ServiceStatus): string | undefined {
  const w = s.worker;
  const [entry] = s.clusterVersion.history;
  if (!entry || w.reconciling || w.actual.image !== entry.image || !(w.components ?? []).some((c) => c.state !== "Pending")) return undefined;
  return `${entry.image}@${entry.startedTime.getTime()}`;
}

/**
 * The events between `previous` (undefined: the first snapshot this process sees) and `next`, and what to remember
 * for the next call.
 */
export function deriveEvents(
  previous: ServiceStatus | undefined,
  next: ServiceStatus,
  memory: DeriveMemory = {},
): { events: DerivedEvent[]; memory: DeriveMemory } {
  const w = next.worker;
  const rel = release(w);
  const about = rel.version || rel.image;
  const event = (kind: EventKind, data: Record<string, unknown> = {}, subject = about): DerivedEvent => ({ kind, subject, data: { release: rel, ...data } });
  // An apply already running when this process first looks is not told as started again.
  if (!previous) return { events: [event("status", currentState(next))], memory: { ...memory, started: applying(next) ?? memory.started } };

  const events: DerivedEvent[] = [];
  const before = previous.worker;
  const load = w.loadPayloadStatus;
  const image = accepted(w);
  if (image && image !== accepted(before)) events.push(event("update.accepted", { step: load.step, verified: load.verified, ...risks(load.acceptedRisks) }));
  const refusal = load.failure;
  const refusedBefore = before.loadPayloadStatus.failure;
  if (refusal && (refusal.message !== refusedBefore?.message || load.update.image !== before.loadPayloadStatus.update.image)) {
    events.push(event("update.refused", { step: load.step, reason: refusal instanceof UpdateError ? refusal.reason : "", message: refusal.message }));
  }

  const [entry] = next.clusterVersion.history;
  const [entryBefore] = previous.clusterVersion.history;
  const sameEntry = entry !== undefined && entryBefore?.image === entry.image && entryBefore.startedTime.getTime() === entry.startedTime.getTime();
  const started = applying(next);
  if (entry && started && started !== memory.started) events.push(event("update.started", { rollback: entry.rollback === true }));

  const pause = w.pause;
  if (pause && pause.pausedAt.getTime() !== before.pause?.pausedAt.getTime()) {
    events.push(event("update.paused", { pausedBy: pause.pausedBy, reason: pause.reason }));
  }

  // A new update starts with no waits told; a component that is done has none.
  const blocked: Record<string, string> = sameEntry ? { ...memory.blocked } : {};
  for (const c of w.components ?? []) {
    if (c.state === "Done") delete blocked[c.component];
    if (c.state !== "Waiting" || !c.waitReason) continue;
    const wait = `${c.waitReason} ${c.currentObject ?? ""}`;
    if (blocked[c.component] === wait) continue;
    blocked[c.component] = wait;
    events.push(
      event("component.blocked", { component: c.component, reason: c.waitReason, object: c.currentObject ?? "", attempts: c.attempts ?? 0 }, c.component),
    );
  }
  const slowBefore = new Set(previous.progress?.slow ?? []);
  for (const name of next.progress?.slow ?? []) if (!slowBefore.has(name)) events.push(event("component.slow", { component: name }, name));

  const failure = failing(next);
  const failureBefore = failing(previous);
  const installWait = w.initial && failure !== undefined && INSTALL_WAIT_REASONS.has(failure.reason);
  if (failure && !installWait && (failure.reason !== failureBefore?.reason || failure.message !== failureBefore.message)) {
    events.push(event("update.failed", { reason: failure.reason, message: failure.message }));
  }

  if (before.pause && !pause) events.push(event("update.resumed"));
  const completed = entry?.state === "Completed" && !(sameEntry && entryBefore.state === "Completed");
  if (completed) events.push(event("update.completed", { firstInstall: next.clusterVersion.history.length === 1, rollback: entry.rollback === true }));
  return { events, memory: { blocked, ...((started ?? memory.started) !== undefined ? { started: started ?? memory.started } : {}) } };
}

/** What a consumer needs to resynchronise: the state a watcher would show, in short. */
function currentState(s: ServiceStatus): Record<string, unknown> {
  const w = s.worker;
  const [entry] = s.clusterVersion.history;
  return {
    state: !entry ? "Idle" : entry.state === "Completed" && w.reconciling ? "Completed" : "Updating",
    message: s.clusterVersion.message,
    done: w.done,
    total: w.total,
    ...(w.pause ? { paused: { pausedBy: w.pause.pausedBy, reason: w.pause.reason } } : {}),
    ...(failing(s) ? { failing: { reason: failing(s)?.reason, message: failing(s)?.message } } : {}),
    blocked: (w.components ?? []).filter((c) => c.state === "Waiting" && c.waitReason).map((c) => ({ component: c.component, reason: c.waitReason })),
  };
}

const risks = (text: string | undefined): Record<string, unknown> => (text ? { acceptedRisks: text.split("\n") } : {});
