/**
 * The fleet's gRPC edge: `syncworker.v1.Fleet/FleetWatch`, one stream per rollout merging the rollout's status from
 * the hub with each member's latest snapshot, plus grpc.health.v1 and reflection. Served by every replica, leader or
 * not: each one watches the hub and every member.
 */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import * as fleetpb from "@syncworker/client/gen/syncworker/v1/fleet";
import type { SyncWorkerStatus } from "@syncworker/client";
import { formatHostPort, type HostPort } from "../config/index.js";
import { MEMBER_STATES, stableJson, type MemberRecord, type MemberSnapshot, type RolloutObject } from "../fleet/index.js";
import { checkAccess, credentialsOf, type AccessControlOptions } from "./access.js";
import { toServiceError } from "./errors.js";
import { reflectionService } from "./reflection.js";
import type { RpcAccess } from "./tokens.js";

const SERVICE_NAME = "syncworker.v1.Fleet";
const HEALTH_SERVICE_NAME = "grpc.health.v1.Health";
/** Reading the fleet is watching its rollouts: with --authn kube, RBAC's verb watch on releaserollouts. */
const FLEET_WATCH_ACCESS: RpcAccess = { rpc: "FleetWatch", role: "reader", verb: "watch" };

/** What the stream is made of: the hub's rollouts and the members' latest snapshots, and word when either changes. */
export interface FleetSource {
  rollout(namespace: string, name: string): RolloutObject | undefined;
  member(name: string): { readonly snapshot?: MemberSnapshot; readonly status?: SyncWorkerStatus; readonly lastSeen?: Date } | undefined;
  /** Calls `changed` whenever a rollout or a member changes, until the returned function is called. */
  subscribe(changed: () => void): () => void;
}

export class FleetApiServer {
  readonly #server = new grpc.Server();
  readonly #health = new HealthImplementation({ "": "NOT_SERVING", [SERVICE_NAME]: "NOT_SERVING" });
  readonly #streams = new Set<() => void>();

  constructor(
    private readonly source: FleetSource,
    private readonly namespace: string,
    private readonly access: AccessControlOptions,
    private readonly credentials: grpc.ServerCredentials,
  ) {
    this.#server.addService(fleetpb.FleetService, {
      fleetWatch: (call: grpc.ServerWritableStream<fleetpb.FleetWatchRequest, fleetpb.FleetWatchResponse>) => this.#watch(call),
    });
    this.#health.addToServer(this.#server);
    reflectionService([SERVICE_NAME, HEALTH_SERVICE_NAME]).addToServer(this.#server);
  }

  async listen(at: HostPort): Promise<string> {
    const port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync(formatHostPort(at), this.credentials, (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    this.#health.setStatus("", "SERVING");
    this.#health.setStatus(SERVICE_NAME, "SERVING");
    return formatHostPort({ host: at.host, port });
  }

  async shutdown(graceMs: number): Promise<void> {
    this.#health.setStatus("", "NOT_SERVING");
    this.#health.setStatus(SERVICE_NAME, "NOT_SERVING");
    for (const end of this.#streams) end();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, graceMs);
      this.#server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * The rollout's view, each member whose view differs from what its cursor says the client has, `synced`; then on
   * every change the views that changed. What this stream last sent is remembered per member, so a change is sent once
   * and a slow reader gets the latest view rather than a backlog.
   */
  #watch(call: grpc.ServerWritableStream<fleetpb.FleetWatchRequest, fleetpb.FleetWatchResponse>): void {
    const checked = new AbortController();
    call.once("cancelled", () => checked.abort());
    checkAccess(this.access, FLEET_WATCH_ACCESS, credentialsOf(call), checked.signal).then(
      () => this.#stream(call),
      (err: unknown) => call.emit("error", toServiceError(err)),
    );
  }

  #stream(call: grpc.ServerWritableStream<fleetpb.FleetWatchRequest, fleetpb.FleetWatchResponse>): void {
    const { rollout: name, cursors, fullStatus } = call.request;
    const namespace = call.request.namespace || this.namespace;
    if (!name) {
      call.destroy(Object.assign(new Error("FleetWatchRequest.rollout: name the rollout to watch"), { code: grpc.status.INVALID_ARGUMENT }));
      return;
    }
    if (!this.source.rollout(namespace, name)) {
      call.destroy(Object.assign(new Error(`ReleaseRollout ${namespace}/${name} not found`), { code: grpc.status.NOT_FOUND }));
      return;
    }
    const cursorOf = new Map(cursors.map((c) => [c.member, c.revision]));
    const sent = new Map<string, string>();
    let sentRollout = "";
    let writing = false;
    let again = false;
    let first = true;
    const flush = (): void => {
      if (writing) {
        again = true;
        return;
      }
      writing = true;
      try {
        do {
          again = false;
          const rollout = this.source.rollout(namespace, name);
          if (!rollout) return end();
          const view = rolloutView(rollout);
          const viewJson = stableJson(view);
          if (viewJson !== sentRollout) {
            sentRollout = viewJson;
            call.write({ rollout: view });
          }
          for (const record of rollout.status?.members ?? []) {
            const member = memberView(record, this.source.member(record.name), fullStatus);
            const json = stableJson({ ...member, lastSeen: undefined });
            if (sent.get(record.name) === json) continue;
            // Resuming: a member the client has at this revision is not sent again, unless the hub's own observation
            // changed its view since (unavailable: the member cannot say so itself).
            const known = first && cursorOf.get(record.name) === member.revision && member.revision > 0 && !fullStatus && record.state !== "Unavailable";
            sent.set(record.name, json);
            if (!known) call.write({ member });
          }
          if (first) {
            first = false;
            call.write({ synced: {} });
          }
        } while (again && !call.cancelled);
      } finally {
        writing = false;
      }
    };
    const unsubscribe = this.source.subscribe(() => {
      // A reader that does not keep up gets the latest views once its buffer drains, not every one in between.
      if (call.writableNeedDrain) again = true;
      else flush();
    });
    const end = (): void => {
      unsubscribe();
      this.#streams.delete(end);
      call.end();
    };
    this.#streams.add(end);
    call.on("drain", () => {
      if (again) flush();
    });
    call.on("cancelled", () => {
      unsubscribe();
      this.#streams.delete(end);
    });
    flush();
  }
}

const STATE_OF = new Map<string, fleetpb.MemberState>(
  MEMBER_STATES.map((s) => [s, fleetpb.MemberState[`MEMBER_STATE_${s.toUpperCase()}` as keyof typeof fleetpb.MemberState]]),
);

const at = (text: string | undefined): Date | undefined => (text ? new Date(text) : undefined);

function rolloutView(rollout: RolloutObject): fleetpb.RolloutView {
  const s = rollout.status;
  const spec = rollout.spec as { release?: { version?: string } } | undefined;
  return {
    name: rollout.name,
    observedGeneration: s?.observedGeneration ?? 0,
    phase: s?.phase ?? "",
    currentStage: s?.currentStage ?? "",
    stages: (s?.stages ?? []).map(({ name, startedAt, completedAt, soakUntil, ...counts }) => ({
      name,
      counts,
      startedAt: at(startedAt),
      completedAt: at(completedAt),
      soakUntil: at(soakUntil),
    })),
    counts: s?.counts,
    conditions: (s?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: at(c.lastTransitionTime),
    })),
    pinnedImage: s?.pinnedImage ?? "",
    releaseVersion: spec?.release?.version ?? "",
    stageSummary: s?.stageSummary ?? "",
  };
}

function memberView(
  record: MemberRecord,
  member: { readonly snapshot?: MemberSnapshot; readonly status?: SyncWorkerStatus; readonly lastSeen?: Date } | undefined,
  fullStatus: boolean,
): fleetpb.MemberView {
  const snapshot = member?.snapshot;
  const estimate = record.estimateSeconds ?? snapshot?.estimateSeconds;
  return {
    member: record.name,
    stage: record.stage,
    state: STATE_OF.get(record.state) ?? fleetpb.MemberState.MEMBER_STATE_UNSPECIFIED,
    revision: snapshot?.revision ?? 0,
    generation: record.generation ?? 0,
    done: snapshot?.done ?? record.done ?? 0,
    total: snapshot?.total ?? record.total ?? 0,
    version: snapshot?.version ?? record.version ?? "",
    blocker: record.blocker ?? "",
    estimatedRemaining: estimate !== undefined ? { seconds: estimate, nanos: 0 } : undefined,
    lastSeen: member?.lastSeen,
    status: fullStatus ? member?.status : undefined,
  };
}
