/**
 * The fleet controller: a work queue of rollouts, each reconciled by planning, writing the planned status, and only
 * then calling the members the plan names. It reaches the hub and the members through ports, so the same code runs
 * on the real API server and in unit tests on fake time.
 */
import { asError, brandError, type Clock, type Logger } from "../core/index.js";
import { planRollout, MAX_PREVIEWS, type Action, type MemberObservation, type Outcome } from "./planner.js";
import { WorkQueue } from "./queue.js";
import { memberClusterStatus, sameMemberStatus, type MemberClusterStatus } from "./member-status.js";
import { rolloutSpec, type MemberControls, type RolloutStatus } from "./resources.js";

export interface RolloutObject {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
  /** The version the status write must find, so a plan made on an older copy is refused. */
  readonly resourceVersion: string;
  readonly spec: unknown;
  readonly status?: RolloutStatus;
}

export interface MemberObject {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** The hub's API server, as the controller uses it: listers fed by watches, and status writes. */
export interface HubPort {
  rollout(namespace: string, name: string): RolloutObject | undefined;
  rollouts(): readonly RolloutObject[];
  members(namespace: string): readonly MemberObject[];
  /** Every MemberCluster the hub lists. */
  allMembers(): readonly MemberObject[];
  /** A MemberCluster's metadata.generation and status as last listed; undefined when it is gone. */
  memberCluster(namespace: string, name: string): { readonly generation: number; readonly status?: MemberClusterStatus } | undefined;
  /** Merges `status` into the MemberCluster's status. */
  writeMemberStatus(namespace: string, name: string, status: MemberClusterStatus, signal: AbortSignal): Promise<void>;
  /** Replaces the rollout's status if it is still the object read; false on a conflict (someone wrote in between). */
  writeStatus(rollout: RolloutObject, status: Partial<RolloutStatus>, signal: AbortSignal): Promise<boolean>;
}

export interface PreviewOutcome {
  readonly planDigest: string;
  /** The release image as the member resolved it (a tag pinned to its digest). */
  readonly image: string;
  readonly limitViolations: readonly string[];
}

export interface MemberUpdate {
  readonly generation: number;
  readonly image: string;
  readonly version: string;
  /** "" when the rollout does not bind Updates to their preview. */
  readonly planDigest: string;
  readonly controls: MemberControls;
}

/** The members' syncworkers, reached by MemberCluster name. Calls fail with {@link MemberCallError}. */
export interface MemberPort {
  observation(namespace: string, name: string): MemberObservation | undefined;
  preview(namespace: string, name: string, image: string, controls: MemberControls, signal: AbortSignal): Promise<PreviewOutcome>;
  update(namespace: string, name: string, update: MemberUpdate, signal: AbortSignal): Promise<void>;
  pause(namespace: string, name: string, reason: string, signal: AbortSignal): Promise<void>;
  resume(namespace: string, name: string, signal: AbortSignal): Promise<void>;
  cancel(namespace: string, name: string, signal: AbortSignal): Promise<void>;
}

/** A call to a member that did not do what was asked: it could not be reached, it refused, or its plan changed. */
export class MemberCallError extends Error {
  static {
    brandError(this, "MemberCallError");
  }
  constructor(
    readonly kind: "unreachable" | "refused" | "planChanged",
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "MemberCallError";
  }
}

/** What the controller reports; the composition root backs it with the metrics registry. */
export interface FleetMetrics {
  /** A reconcile ended: the status was written, unchanged, refused as stale (conflict), or it failed. */
  reconcile(result: "written" | "unchanged" | "conflict" | "error", seconds: number): void;
  /** The members of a rollout by state, as last planned. */
  members(rollout: string, counts: Readonly<Record<string, number>>): void;
  /** A call to a member ended: ok, refused, or not reached. */
  memberCall(call: Action["kind"], outcome: "ok" | "refused" | "unreachable"): void;
  /** Whether this replica leads. */
  leading(leads: boolean): void;
}

export const NO_FLEET_METRICS: FleetMetrics = { reconcile: () => undefined, members: () => undefined, memberCall: () => undefined, leading: () => undefined };

export interface ControllerOptions {
  readonly hub: HubPort;
  readonly members: MemberPort;
  readonly metrics: FleetMetrics;
  readonly clock: Clock;
  readonly log: Logger;
  /** Every rollout is planned again this often, whatever happened. */
  readonly resyncMs: number;
  /** Wait after a member could not be reached before it is called again. */
  readonly retryMs: number;
  /** Least time between two status writes of a rollout that change only its members' progress. */
  readonly progressWriteMs: number;
  readonly workers: number;
}

/** What the leader remembers of one rollout between plans; a new term starts empty and reads the status instead. */
interface RolloutMemory {
  readonly outcomes: Map<string, Outcome>;
  readonly inFlight: Set<string>;
  /** When the status was last written (ms), to space out writes of progress alone. */
  lastWrite: number;
}

/** The status without what moves with every snapshot of a member under way (its done, total, estimate, blocker). */
function withoutProgress(status: RolloutStatus | undefined): unknown {
  return status && { ...status, members: status.members.map(({ done: _d, total: _t, estimateSeconds: _e, blocker: _b, version: _v, ...rest }) => rest) };
}

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;
/** Queue keys of MemberClusters (their status) start with this; a rollout's key is its namespace/name. */
const MEMBER_KEY = "member:";

export class FleetController {
  readonly #memory = new Map<string, RolloutMemory>();
  #queue: WorkQueue | undefined;

  constructor(private readonly options: ControllerOptions) {}

  /** Plan this rollout again soon (an informer event or a member's snapshot). */
  enqueue(namespace: string, name: string): void {
    this.#queue?.add(keyOf(namespace, name));
  }

  /** A member's snapshot changed: its MemberCluster's status, and every rollout of its namespace, again. */
  memberChanged(namespace: string, name: string): void {
    this.#queue?.add(`${MEMBER_KEY}${keyOf(namespace, name)}`);
    for (const rollout of this.options.hub.rollouts()) if (rollout.namespace === namespace) this.enqueue(rollout.namespace, rollout.name);
  }

  /** Leads until `term` aborts: workers take rollouts off the queue; every call made under the term ends with it. */
  async run(term: AbortSignal): Promise<void> {
    const queue = new WorkQueue(this.options.clock, term);
    this.#queue = queue;
    this.#memory.clear();
    this.options.metrics.leading(true);
    const resync = async (): Promise<void> => {
      while (!term.aborted) {
        for (const r of this.options.hub.rollouts()) queue.add(keyOf(r.namespace, r.name));
        for (const m of this.options.hub.allMembers()) queue.add(`${MEMBER_KEY}${keyOf(m.namespace, m.name)}`);
        await this.options.clock.sleep(this.options.resyncMs, term).catch(() => undefined);
      }
    };
    const worker = async (): Promise<void> => {
      for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
        const started = this.options.clock.now().getTime();
        const took = (): number => (this.options.clock.now().getTime() - started) / 1000;
        try {
          this.options.metrics.reconcile(await this.#reconcile(key, queue, term), took());
          queue.forget(key);
        } catch (err) {
          if (term.aborted) break;
          this.options.metrics.reconcile("error", took());
          this.options.log.warn(`rollout ${key}: ${asError(err).message}; retrying`);
          queue.addRateLimited(key);
        } finally {
          queue.done(key);
        }
      }
    };
    await Promise.all([resync(), ...Array.from({ length: this.options.workers }, worker)]);
    if (this.#queue === queue) this.#queue = undefined;
    this.options.metrics.leading(false);
  }

  async #reconcile(key: string, queue: WorkQueue, term: AbortSignal): Promise<"written" | "unchanged" | "conflict"> {
    if (key.startsWith(MEMBER_KEY)) return this.#reconcileMember(key.slice(MEMBER_KEY.length), term);
    const [namespace = "", name = ""] = key.split("/");
    const rollout = this.options.hub.rollout(namespace, name);
    if (!rollout) {
      this.options.metrics.members(key, {});
      return "unchanged";
    }
    // Keyed by uid: a rollout deleted and created again under the same name starts from nothing.
    let memory = this.#memory.get(rollout.uid);
    if (!memory) {
      memory = { outcomes: new Map(), inFlight: new Set(), lastWrite: 0 };
      this.#memory.set(rollout.uid, memory);
    }
    const parsed = rolloutSpec.safeParse(rollout.spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const message = `spec.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`;
      const condition = {
        type: "Progressing",
        status: "False" as const,
        reason: "InvalidSpec",
        message,
        lastTransitionTime: this.options.clock.now().toISOString(),
      };
      if (rollout.status?.conditions?.[0]?.message === message) return "unchanged";
      const written = await this.options.hub.writeStatus(rollout, { observedGeneration: rollout.generation, phase: "Pending", conditions: [condition] }, term);
      return written ? "written" : "conflict";
    }
    const spec = parsed.data;
    const members = this.options.hub.members(namespace);
    const observed = new Map(
      members.flatMap((m) => {
        const o = this.options.members.observation(namespace, m.name);
        return o ? [[m.name, o] as const] : [];
      }),
    );
    const plan = planRollout({
      generation: rollout.generation,
      spec,
      status: rollout.status,
      candidates: members,
      observed,
      outcomes: memory.outcomes,
      inFlight: memory.inFlight,
      now: this.options.clock.now(),
    });
    this.options.metrics.members(key, plan.status.counts as unknown as Record<string, number>);
    let changed = stableJson(plan.status) !== stableJson(rollout.status);
    // Progress alone (members' done counts, estimates, what they wait for) is written at most every
    // progressWriteMs: a rollout's status holds every member, and each of them reports many times a second.
    const now = this.options.clock.now().getTime();
    const progressDue = memory.lastWrite + this.options.progressWriteMs - now;
    if (changed && plan.actions.length === 0 && progressDue > 0 && stableJson(withoutProgress(plan.status)) === stableJson(withoutProgress(rollout.status))) {
      queue.addAfter(key, progressDue);
      changed = false;
    }
    if (changed) {
      // The status is written before any call it asks for.
      if (!(await this.options.hub.writeStatus(rollout, plan.status, term))) {
        // Our copy was stale: the watch brings the new one and its event plans again; call nobody on a stale plan.
        queue.addAfter(key, this.options.retryMs);
        return "conflict";
      }
      memory.lastWrite = now;
    }
    const done = (): void => queue.add(key);
    for (const action of plan.actions) {
      memory.inFlight.add(action.member);
      void this.#act(namespace, spec.memberControls, spec.release.version, action, memory, term).finally(() => {
        memory.inFlight.delete(action.member);
        done();
      });
    }
    if (plan.requeueAfterMs !== undefined) queue.addAfter(key, plan.requeueAfterMs);
    return changed ? "written" : "unchanged";
  }

  /** The MemberCluster's status brought up to what its syncworker last showed, written when a reader would see a change. */
  async #reconcileMember(key: string, term: AbortSignal): Promise<"written" | "unchanged"> {
    const [namespace = "", name = ""] = key.split("/");
    const member = this.options.hub.memberCluster(namespace, name);
    if (!member) return "unchanged";
    const status = memberClusterStatus(member.generation, this.options.members.observation(namespace, name), member.status, this.options.clock.now());
    if (sameMemberStatus(member.status, status)) return "unchanged";
    await this.options.hub.writeMemberStatus(namespace, name, status, term);
    return "written";
  }

  async #act(namespace: string, controls: MemberControls, version: string, action: Action, memory: RolloutMemory, term: AbortSignal): Promise<void> {
    const { log, clock, retryMs, metrics } = this.options;
    const member = action.member;
    try {
      await this.#call(namespace, controls, version, action, memory, term);
      metrics.memberCall(action.kind, "ok");
    } catch (err) {
      if (term.aborted) return;
      // A refused preview or Update is the member's answer to the release: it fails there. A refused cancel means
      // applying started (the member finishes). A refused pause or resume (already paused, not paused) is retried
      // after the wait below until the member's stream shows what the rollout wants.
      const refused = err instanceof MemberCallError && err.kind !== "unreachable";
      metrics.memberCall(action.kind, refused ? "refused" : "unreachable");
      if (refused && action.kind !== "pause" && action.kind !== "resume") {
        memory.outcomes.set(
          member,
          action.kind === "cancel" ? { kind: "cancelRefused", message: err.message } : { kind: "refused", reason: err.reason, message: err.message },
        );
        return;
      }
      log.warn(`member ${namespace}/${member}: ${action.kind}: ${asError(err).message}; trying again in ${retryMs} ms`);
      // Held in flight while it waits, so the next plan does not call it again at once.
      await clock.sleep(retryMs, term).catch(() => undefined);
    }
  }

  /** Makes the call `action` asks for, keeping what it answered as the member's outcome. */
  async #call(namespace: string, controls: MemberControls, version: string, action: Action, memory: RolloutMemory, term: AbortSignal): Promise<void> {
    const { members } = this.options;
    const member = action.member;
    switch (action.kind) {
      case "pin": {
        const preview = await members.preview(namespace, member, action.image, controls, term);
        memory.outcomes.set(member, { kind: "pinned", image: preview.image });
        return;
      }
      case "start":
        memory.outcomes.set(member, await this.#start(namespace, member, action.generation, action.image, version, controls, term));
        return;
      case "pause":
        await members.pause(namespace, member, "paused by its fleet rollout", term);
        memory.outcomes.set(member, { kind: "paused" });
        return;
      case "resume":
        await members.resume(namespace, member, term);
        memory.outcomes.set(member, { kind: "resumed" });
        return;
      case "cancel":
        await members.cancel(namespace, member, term);
        memory.outcomes.set(member, { kind: "cancelled" });
        return;
    }
  }

  /** Preview, then the Update bound to that preview; a plan that changed in between is previewed again. */
  async #start(
    namespace: string,
    member: string,
    generation: number,
    image: string,
    version: string,
    controls: MemberControls,
    term: AbortSignal,
  ): Promise<Outcome> {
    const { members } = this.options;
    for (let previews = 1; ; previews++) {
      const preview = await members.preview(namespace, member, image, controls, term);
      if (preview.limitViolations.length > 0) return { kind: "blocked", reason: "BlastRadiusExceeded", message: preview.limitViolations.join("; ") };
      try {
        await members.update(namespace, member, { generation, image, version, planDigest: controls.planBound ? preview.planDigest : "", controls }, term);
        return { kind: "accepted", generation, planDigest: preview.planDigest, previews };
      } catch (err) {
        if (!(err instanceof MemberCallError && err.kind === "planChanged")) throw err;
        if (previews >= MAX_PREVIEWS)
          return { kind: "blocked", reason: "PlanChanged", message: `the plan changed between preview and Update ${previews} times: ${err.message}` };
      }
    }
  }
}

/** JSON with keys sorted, to compare our status with the one the API server returns (which sorts its keys). */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
