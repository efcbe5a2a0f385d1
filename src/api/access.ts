/**
 * Who may call which SyncWorker RPC, checked once at the edge before a handler runs. Health and reflection are
 * separate services and stay open.
 */
import type * as grpc from "@grpc/grpc-js";
import type * as fleetpb from "@syncworker/client/gen/syncworker/v1/fleet";
import type * as pb from "@syncworker/client/gen/syncworker/v1/syncworker";
import { AccessError, toServiceError } from "./errors.js";
import type { RpcAccess, TokenAuthority } from "./tokens.js";

/**
 * The one table of what each RPC needs. Keyed by the generated service, so a new RPC does not compile until
 * it is listed here.
 */
export const RPC_ACCESS = {
  update: { rpc: "Update", role: "writer", verb: "update" },
  notifyResourceActivity: { rpc: "NotifyResourceActivity", role: "writer", verb: "update" },
  getStatus: { rpc: "GetStatus", role: "reader", verb: "get" },
  statusWatch: { rpc: "StatusWatch", role: "reader", verb: "watch" },
  // A preview shows live objects' managed fields and runs dry-run writes with the service's own credentials.
  preview: { rpc: "Preview", role: "writer", verb: "update" },
  pauseUpdate: { rpc: "PauseUpdate", role: "writer", verb: "update" },
  resumeUpdate: { rpc: "ResumeUpdate", role: "writer", verb: "update" },
  cancelUpdate: { rpc: "CancelUpdate", role: "writer", verb: "update" },
} as const satisfies Record<keyof typeof pb.SyncWorkerService, RpcAccess>;

/**
 * What the Fleet service's RPCs need (served by `syncworker fleet`, and its page). Reading the fleet is watching its
 * rollouts: with --authn kube, RBAC's verb watch on releaserollouts.
 */
export const FLEET_ACCESS = {
  fleetWatch: { rpc: "FleetWatch", role: "reader", verb: "watch" },
} as const satisfies Record<keyof typeof fleetpb.FleetService, RpcAccess>;

/** What every grpc-js server call has (a server-streaming call is one too, plus its writer). */
type SurfaceCall = grpc.ServerUnaryCall<unknown, unknown>;

export interface AccessControlOptions {
  /** Calls must come with a client certificate the TLS handshake verified against `--client-ca`. */
  readonly requireClientCertificate: boolean;
  /** Calls must carry `authorization: Bearer <token>` that this authority accepts for the RPC; none: no token needed. */
  readonly tokens?: TokenAuthority;
}

/** Without a client CA or tokens everyone may call everything: the loopback default, or `--insecure`. */
export const OPEN_ACCESS: AccessControlOptions = { requireClientCertificate: false };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What a request shows of who sent it: its `authorization` header, and the client certificate its TLS handshake verified. */
export interface Credentials {
  readonly authorization: string | undefined;
  readonly certificate: { readonly subject: { readonly CN?: unknown } } | undefined;
}

/** A gRPC call's {@link Credentials}. */
export function credentialsOf(call: Pick<SurfaceCall, "metadata" | "getAuthContext">): Credentials {
  const header = call.metadata.get("authorization")[0];
  return { authorization: typeof header === "string" ? header : undefined, certificate: call.getAuthContext().sslPeerCertificate };
}

/**
 * Checks one request (a gRPC call, or the page's HTTP request); resolves with who made it (for the log) or rejects
 * with an {@link AccessError}. The client certificate is verified by the handshake; here only its presence is
 * required, so a client without one still reaches health and reflection and gets UNAUTHENTICATED rather than a
 * failed handshake.
 */
export async function checkAccess(options: AccessControlOptions, access: RpcAccess, credentials: Credentials, signal: AbortSignal): Promise<string> {
  let who = "anonymous";
  if (options.requireClientCertificate) {
    const certificate = credentials.certificate;
    if (!certificate)
      throw new AccessError(
        "Unauthenticated",
        access.rpc,
        `${access.rpc} needs a client certificate signed by the server's client CA; none was presented, or not one signed by that CA`,
      );
    who = `certificate CN=${String(certificate.subject.CN)}`;
  }
  if (!options.tokens) return who;
  const header = credentials.authorization;
  const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (!token)
    throw new AccessError("Unauthenticated", access.rpc, `${access.rpc} needs a bearer token (metadata "authorization: Bearer <token>"), and none was sent`);
  let decision;
  try {
    decision = await options.tokens.review(token, access, signal);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new AccessError("AuthorityUnavailable", access.rpc, `the bearer token could not be checked: ${message}`, { cause: err });
  }
  if (decision.outcome === "unauthenticated") throw new AccessError("Unauthenticated", access.rpc, `${access.rpc} refused: ${decision.reason}`);
  if (decision.outcome === "denied") throw new AccessError("PermissionDenied", access.rpc, `"${decision.user}" may not call ${access.rpc}: ${decision.reason}`);
  return decision.user;
}

/** Who made each allowed call, as {@link checkAccess} named them. */
const callers = new WeakMap<object, string>();

/**
 * The caller of `call` for a handler that records it (PauseUpdate's paused_by): the identity access control
 * established, or the peer address when the server does not authenticate.
 */
export function callerOf(call: Pick<SurfaceCall, "getPeer">): string {
  return callers.get(call) ?? call.getPeer();
}

/** Told of every checked call: who made an allowed one, and the status a refused one gets (so it is counted like any call). */
export interface AccessEvents {
  allowed(access: RpcAccess, who: string): void;
  refused(access: RpcAccess, type: "unary" | "server_stream", call: SurfaceCall, status: Partial<grpc.ServiceError>): void;
}

/** A unary handler takes a callback; a server-streaming one answers on the call itself. */
type Handler = (call: SurfaceCall, callback?: grpc.sendUnaryData<unknown>) => void;

/** Wraps every handler of the service so it runs only after {@link checkAccess} allowed the call. */
export function guardHandlers(
  handlers: pb.SyncWorkerServer,
  options: AccessControlOptions,
  service: typeof pb.SyncWorkerService,
  events: AccessEvents,
): pb.SyncWorkerServer {
  if (!options.requireClientCertificate && !options.tokens) return handlers;
  const guarded: Record<string, Handler> = {};
  for (const [key, access] of Object.entries(RPC_ACCESS) as [keyof typeof RPC_ACCESS, RpcAccess][]) {
    const handler = handlers[key] as unknown as Handler;
    const streaming = service[key].responseStream;
    guarded[key] = (call, callback) => {
      const controller = new AbortController();
      call.once("cancelled", () => controller.abort());
      checkAccess(options, access, credentialsOf(call), controller.signal).then(
        (who) => {
          callers.set(call, who);
          events.allowed(access, who);
          handler(call, callback);
        },
        (err: unknown) => {
          const status = toServiceError(err);
          events.refused(access, streaming ? "server_stream" : "unary", call, status);
          if (streaming) call.emit("error", status);
          else callback?.(status);
        },
      );
    };
  }
  return guarded as unknown as pb.SyncWorkerServer;
}
