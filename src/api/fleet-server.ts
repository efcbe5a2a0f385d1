/**
 * The fleet's gRPC edge: `syncworker.v1.Fleet/FleetWatch`, one stream per rollout merging the rollout's status from
 * the hub with each member's latest snapshot, plus grpc.health.v1 and reflection. Served by every replica, leader or
 * not: each one watches the hub and every member.
 */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import * as fleetpb from "@syncworker/client/gen/syncworker/v1/fleet";
import { formatHostPort, type HostPort } from "../config/index.js";
import { checkAccess, credentialsOf, FLEET_ACCESS, type AccessControlOptions } from "./access.js";
import { toServiceError } from "./errors.js";
import { followRollout, type FleetSource } from "./fleet-views.js";
import { drainServer } from "./drain.js";
import { reflectionService } from "./reflection.js";

const SERVICE_NAME = "syncworker.v1.Fleet";
const HEALTH_SERVICE_NAME = "grpc.health.v1.Health";

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
    await drainServer(this.#server, graceMs);
  }

  /**
   * The rollout's view, each member whose view differs from what its cursor says the client has, `synced`; then on
   * every change the views that changed. What this stream last sent is remembered per member, so a change is sent once
   * and a slow reader gets the latest view rather than a backlog.
   */
  #watch(call: grpc.ServerWritableStream<fleetpb.FleetWatchRequest, fleetpb.FleetWatchResponse>): void {
    const checked = new AbortController();
    call.once("cancelled", () => checked.abort());
    checkAccess(this.access, FLEET_ACCESS.fleetWatch, credentialsOf(call), checked.signal).then(
      () => this.#stream(call),
      (err: unknown) => call.emit("error", toServiceError(err)),
    );
  }

  #stream(call: grpc.ServerWritableStream<fleetpb.FleetWatchRequest, fleetpb.FleetWatchResponse>): void {
    const { rollout: name, cursors, fullStatus } = call.request;
    const namespace = call.request.namespace || this.namespace;
    if (!name) {
      // emit("error") sends the status; grpc-js' destroy() would end the stream without one, leaving the client waiting.
      call.emit("error", { code: grpc.status.INVALID_ARGUMENT, details: "FleetWatchRequest.rollout: name the rollout to watch" });
      return;
    }
    if (!this.source.rollout(namespace, name)) {
      call.emit("error", { code: grpc.status.NOT_FOUND, details: `ReleaseRollout ${namespace}/${name} not found` });
      return;
    }
    const end = (): void => {
      following.stop();
      this.#streams.delete(end);
      call.end();
    };
    const following = followRollout(
      this.source,
      { namespace, name, cursors: new Map(cursors.map((c) => [c.member, c.revision])), fullStatus },
      { write: (event) => call.write(event), blocked: () => call.writableNeedDrain || call.cancelled },
      end,
    );
    this.#streams.add(end);
    call.on("drain", () => following.drained());
    call.on("cancelled", () => {
      following.stop();
      this.#streams.delete(end);
    });
  }
}
