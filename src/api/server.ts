import * as grpc from "@grpc/grpc-js";
import type { Tracer } from "@opentelemetry/api";
import { HealthImplementation } from "grpc-health-check";
import * as pb from "@syncworker/client/gen/syncworker/v1/syncworker";
import { formatHostPort, type HostPort } from "../config/index.js";
import type { Deliver, ServiceStatus, Snapshot } from "../status/index.js";
import type { PlannedObject, UpdateRequest } from "../worker/index.js";
import type { Logger } from "../core/index.js";
import type { PreviewInput, PreviewResult } from "../worker/planning/index.js";
import { fromProtoNotify, fromProtoPause, fromProtoUpdate, toProtoStatus } from "./convert.js";
import { InvalidArgumentError, toServiceError } from "./errors.js";
import { accepted, checkedDecoding, MAX_RECEIVE_MESSAGE_BYTES, WatchLimiter } from "./limits.js";
import { callerOf, guardHandlers, OPEN_ACCESS, type AccessControlOptions } from "./access.js";
import { CallObserver, NO_API_METRICS, type ApiMetrics, type CallScope } from "./observe.js";
import { drainServer } from "./drain.js";
import { reflectionService } from "./reflection.js";
import { fromProtoPreview, fromProtoUpdateControls, toProtoObjectPreview, toProtoPreviewSummary } from "./preview.js";

/** What the edge needs of the service; the composition root passes the SyncService. */
export interface ServicePort {
  update(request: UpdateRequest, signal: AbortSignal): Promise<Snapshot<ServiceStatus>>;
  notify(message: string): boolean;
  /** Holds the update at a task boundary; `pausedBy` is who asked. */
  pause(pausedBy: string, reason: string): Promise<Snapshot<ServiceStatus>>;
  resume(): Promise<Snapshot<ServiceStatus>>;
  /** Drops the desired release while none of it was written; with `rollback`, rolls back once it was. */
  cancel(rollback: boolean, signal: AbortSignal): Promise<{ readonly snapshot: Snapshot<ServiceStatus>; readonly rollbackStarted: boolean }>;
  /** Streams each object's predicted effect to `onObject`, then resolves with the plan's summary. */
  preview(input: PreviewInput, onObject: (object: PlannedObject) => void, signal: AbortSignal): Promise<PreviewResult>;
  latest(): Snapshot<ServiceStatus>;
  subscribe(sinceRevision: number, deliver: Deliver<ServiceStatus>): () => void;
}

export interface ApiDeps {
  readonly service: ServicePort;
  readonly log: Logger;
  /** Server spans for every SyncWorker call; none when absent (tracing off). */
  readonly tracer?: Tracer;
  /** Call counts and latencies, open watch streams; none when absent. */
  readonly metrics?: ApiMetrics;
  /** TLS (see tls.ts); plaintext when absent. */
  readonly credentials?: grpc.ServerCredentials;
  /** Who may call which RPC (see access.ts); everyone when absent. */
  readonly access?: AccessControlOptions;
  /**
   * Rejects, saying why, when the service must not load an Update's `desired.image` (outside the payload roots, a
   * malformed reference); else resolves to the image to use (a release image's tag resolved to its digest).
   */
  readonly admitImage: (image: string) => Promise<string>;
  /** How many StatusWatch streams one client host may hold at once. */
  readonly maxWatchesPerClient: number;
  /** The syncworker release serving, reported by GetStatus. */
  readonly version: string;
}

const SERVICE_NAME = "syncworker.v1.SyncWorker";
const HEALTH_SERVICE_NAME = "grpc.health.v1.Health";

/**
 * Sends grpc-js' own log lines (it writes "E No address added …" to stderr when a bind fails) to the service's log,
 * so stderr holds the JSON log and the one line naming a failure, nothing else. grpc-js has one logger per process.
 */
export function logGrpcTo(log: Logger): void {
  const line = (...args: unknown[]): string => args.map(String).join(" ");
  grpc.setLogger({
    error: (...args: unknown[]) => log.warn(line(...args)),
    info: (...args: unknown[]) => log.info(line(...args)),
    debug: (...args: unknown[]) => log.debug(line(...args)),
  });
}

/**
 * Every watcher receives the same response object for a snapshot, so its bytes are encoded once
 * and shared; this keeps 1,000 watchers cheap.
 */
function sharedEncodingService(): typeof pb.SyncWorkerService {
  const encoded = new WeakMap<pb.StatusWatchResponse, Buffer>();
  const serialize = (value: pb.StatusWatchResponse): Buffer => {
    let bytes = encoded.get(value);
    if (!bytes) {
      bytes = Buffer.from(pb.StatusWatchResponse.encode(value).finish());
      encoded.set(value, bytes);
    }
    return bytes;
  };
  return { ...pb.SyncWorkerService, statusWatch: { ...pb.SyncWorkerService.statusWatch, responseSerialize: serialize } };
}

/** The gRPC edge: SyncWorker, grpc.health.v1 and server reflection on one server. */
export class ApiServer {
  readonly #server = new grpc.Server({ "grpc.max_receive_message_length": MAX_RECEIVE_MESSAGE_BYTES });
  readonly #health = new HealthImplementation({ "": "NOT_SERVING", [SERVICE_NAME]: "NOT_SERVING" });
  /** Ends each open StatusWatch stream. */
  readonly #streams = new Set<() => void>();
  readonly #responses = new WeakMap<Snapshot<ServiceStatus>, pb.StatusWatchResponse>();

  constructor(private readonly deps: ApiDeps) {
    this.#server.addService(checkedDecoding(sharedEncodingService()), this.#handlers());
    this.#health.addToServer(this.#server);
    // Reflection lists what this server serves, not every service of the protos (the fleet's is served elsewhere).
    reflectionService([SERVICE_NAME, HEALTH_SERVICE_NAME]).addToServer(this.#server);
  }

  /** Binds `at` (port 0 picks a free one) and returns the bound `HOST:PORT`. */
  async listen(at: HostPort): Promise<string> {
    const port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync(formatHostPort(at), this.deps.credentials ?? grpc.ServerCredentials.createInsecure(), (err, bound) =>
        err ? reject(err) : resolve(bound),
      ),
    );
    this.#setServing("SERVING");
    return formatHostPort({ host: at.host, port });
  }

  /** Health NOT_SERVING, watch streams ended, then the server drains (forced after `graceMs`). */
  async shutdown(graceMs: number): Promise<void> {
    this.#setServing("NOT_SERVING");
    for (const end of this.#streams) end();
    await drainServer(this.#server, graceMs);
  }

  #setServing(status: "SERVING" | "NOT_SERVING"): void {
    this.#health.setStatus("", status);
    this.#health.setStatus(SERVICE_NAME, status);
  }

  #response(snapshot: Snapshot<ServiceStatus>): pb.StatusWatchResponse {
    let response = this.#responses.get(snapshot);
    if (!response) {
      response = { status: toProtoStatus(snapshot) };
      this.#responses.set(snapshot, response);
    }
    return response;
  }

  #handlers(): pb.SyncWorkerServer {
    const { service, log } = this.deps;
    const metrics = this.deps.metrics ?? NO_API_METRICS;
    const observer = new CallObserver(SERVICE_NAME, this.deps.tracer, metrics);
    const watches = new WatchLimiter(this.deps.maxWatchesPerClient);
    const fail = (scope: CallScope, err: unknown): Partial<grpc.ServiceError> => {
      const serviceError = toServiceError(err);
      scope.end(serviceError.code ?? grpc.status.UNKNOWN, serviceError.details);
      return serviceError;
    };
    // Update and Preview admit the image alike, a tag resolved to its digest: a plan previewed by tag is then the
    // plan an Update of that tag computes, and both name the image they used.
    const admitted = async <T extends { readonly desired: { readonly image: string } }>(request: T): Promise<T> => {
      const image = await this.deps.admitImage(request.desired.image).catch((err: unknown) => {
        throw new InvalidArgumentError("desired.image", err instanceof Error ? err.message : String(err));
      });
      return { ...request, desired: { ...request.desired, image } };
    };
    // PauseUpdate and ResumeUpdate: a write that answers with the status it left.
    /** A call answered with the status after it: `answer` makes the response from it (with what else the call says). */
    const answerStatus = <Req extends object, Res>(
      rpc: string,
      call: grpc.ServerUnaryCall<Req, unknown>,
      callback: grpc.sendUnaryData<Res>,
      act: (request: Req) => Promise<{ snapshot: Snapshot<ServiceStatus>; answer: (status: pb.SyncWorkerStatus) => Res }>,
    ): void => {
      const scope = observer.begin(rpc, "unary", call);
      void scope.run(async () => {
        try {
          const { snapshot, answer } = await act(accepted(call.request));
          scope.end(grpc.status.OK);
          callback(null, answer(toProtoStatus(snapshot)));
        } catch (err) {
          callback(fail(scope, err));
        }
      });
    };
    const statusOnly = (snapshot: Snapshot<ServiceStatus>) => ({ snapshot, answer: (status: pb.SyncWorkerStatus) => ({ status }) });
    const handlers: pb.SyncWorkerServer = {
      preview: (call) => {
        const scope = observer.begin("Preview", "server_stream", call);
        const controller = new AbortController();
        call.on("cancelled", () => controller.abort());
        void scope.run(async () => {
          try {
            const input = await admitted(fromProtoPreview(accepted(call.request)));
            const result = await service.preview(input, (object) => call.write(toProtoObjectPreview(object)), controller.signal);
            call.write(toProtoPreviewSummary(result));
            scope.end(grpc.status.OK);
            call.end();
          } catch (err) {
            call.emit("error", fail(scope, err));
          }
        });
      },
      pauseUpdate: (call, callback) =>
        answerStatus("PauseUpdate", call, callback, async (request) => statusOnly(await service.pause(callerOf(call), fromProtoPause(request)))),
      resumeUpdate: (call, callback) => answerStatus("ResumeUpdate", call, callback, async () => statusOnly(await service.resume())),
      cancelUpdate: (call, callback) => {
        // A rollback is an Update: its payload load stops when the caller goes away, as an Update's does.
        const controller = new AbortController();
        call.on("cancelled", () => controller.abort());
        answerStatus("CancelUpdate", call, callback, async (request) => {
          const { snapshot, rollbackStarted } = await service.cancel(request.rollback, controller.signal);
          return { snapshot, answer: (status) => ({ status, rollbackStarted }) };
        });
      },
      update: (call, callback) => {
        const scope = observer.begin("Update", "unary", call);
        const controller = new AbortController();
        call.on("cancelled", () => controller.abort());
        // Inside the call's span, so payload retrieve/load spans and log lines belong to this call.
        void scope.run(async () => {
          try {
            // A tag comes back resolved to its digest: the service keeps and reports the release it pulls.
            const request = await admitted({ ...fromProtoUpdate(accepted(call.request)), ...fromProtoUpdateControls(call.request) });
            const snapshot = await service.update({ ...request, ...(scope.span ? { cause: scope.span } : {}) }, controller.signal);
            scope.end(grpc.status.OK);
            callback(null, { status: toProtoStatus(snapshot) });
          } catch (err) {
            callback(fail(scope, err));
          }
        });
      },
      getStatus: (call, callback) => {
        const scope = observer.begin("GetStatus", "unary", call);
        try {
          accepted(call.request);
        } catch (err) {
          return callback(fail(scope, err));
        }
        scope.end(grpc.status.OK);
        callback(null, { status: toProtoStatus(service.latest()), serverVersion: this.deps.version });
      },
      notifyResourceActivity: (call, callback) => {
        const scope = observer.begin("NotifyResourceActivity", "unary", call);
        try {
          const message = fromProtoNotify(accepted(call.request));
          const queued = scope.run(() => service.notify(message));
          scope.end(grpc.status.OK);
          callback(null, { queued });
        } catch (err) {
          callback(fail(scope, err));
        }
      },
      statusWatch: (call) => {
        const scope = observer.begin("StatusWatch", "server_stream", call);
        let release: () => void;
        try {
          accepted(call.request);
          release = watches.acquire(call.getPeer());
        } catch (err) {
          call.emit("error", fail(scope, err));
          return;
        }
        metrics.watchStreams(1);
        let open = true;
        const end = (code: grpc.status): void => {
          unsubscribe();
          release();
          this.#streams.delete(endOk);
          if (open) metrics.watchStreams(-1);
          open = false;
          // grpc-js also reports "cancelled" after call.end(); the scope keeps the first outcome.
          scope.end(code);
          if (!call.cancelled && call.writable) call.end();
        };
        const endOk = (): void => end(grpc.status.OK);
        // One message in flight per watcher: while it is being sent, newer snapshots coalesce in
        // the store instead of queueing in the stream's buffers.
        // A snapshot older than the stream is timed from the stream's start, not from its publication.
        const subscribedAt = Date.now();
        const unsubscribe = service.subscribe(call.request.sinceRevision, (snapshot, done) => {
          call.write(this.#response(snapshot), (err?: Error | null) => {
            if (!err) {
              metrics.watchDelivered((Date.now() - Math.max(snapshot.publishedAt, subscribedAt)) / 1000);
              return done();
            }
            log.warn(`status watch ended: ${err.message}`);
            end(grpc.status.UNAVAILABLE);
          });
        });
        this.#streams.add(endOk);
        call.on("cancelled", () => end(grpc.status.CANCELLED));
      },
    };
    return guardHandlers(handlers, this.deps.access ?? OPEN_ACCESS, pb.SyncWorkerService, {
      // Writes are worth an audit line; reads would flood the log.
      allowed: (access, who) => (access.role === "writer" ? log.info(`${access.rpc} by ${who}`) : log.debug(`${access.rpc} by ${who}`)),
      refused: (access, type, call, status) => {
        const code = status.code ?? grpc.status.UNKNOWN;
        observer.begin(access.rpc, type, call).end(code, status.details);
        log.info(`${access.rpc} from ${call.getPeer()} refused with ${grpc.status[code]}: ${status.details}`);
      },
    });
  }
}
