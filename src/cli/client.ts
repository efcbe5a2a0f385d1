import { readFileSync } from "node:fs";
import { formatHostPort, parseHostPort } from "../config/index.js";
import { credentials, InterceptingCall, type ChannelOptions, type Interceptor } from "@grpc/grpc-js";
import {
  SyncWorkerClient,
  SyncWorkerStatus,
  type GetStatusResponse,
  type NotifyResourceActivityResponse,
  type UpdateRequest,
  type UpdateResponse,
} from "../gen/syncworker/v1/syncworker.js";

export const DEFAULT_ADDRESS = "127.0.0.1:50051";

/** How the CLI reaches the service: its address, TLS settings and a bearer token. */
export interface ConnectOptions {
  readonly address: string;
  /** TLS with the system's roots; implied by any of the other TLS settings. */
  readonly tls?: boolean;
  /** CA bundle (PEM file) the server's certificate must chain to. */
  readonly ca?: string;
  /** Client certificate and key (PEM files) for mTLS. */
  readonly cert?: string;
  readonly key?: string;
  /** The name the server's certificate must carry, when it differs from the address's host. */
  readonly serverName?: string;
  readonly token?: string;
  /** A file holding the token (as a mounted Secret does). */
  readonly tokenFile?: string;
}

/** Adds `authorization: Bearer <token>` to every call, over TLS or plaintext alike (call credentials refuse plaintext). */
function bearer(token: string): Interceptor {
  return (options, next) =>
    new InterceptingCall(next(options), {
      start: (metadata, listener, start) => {
        metadata.set("authorization", `Bearer ${token}`);
        start(metadata, listener);
      },
    });
}

/** The token from --token, else --token-file, else $SYNCWORKER_TOKEN; undefined when none is set. */
function tokenOf(o: ConnectOptions, env: NodeJS.ProcessEnv): string | undefined {
  if (o.token && o.tokenFile) throw new Error("give --token or --token-file, not both");
  const token = o.token ?? (o.tokenFile ? readFileSync(o.tokenFile, "utf8").trim() : env["SYNCWORKER_TOKEN"]);
  return token || undefined;
}

/** A client for an address (plaintext, no token unless $SYNCWORKER_TOKEN is set) or for the CLI's connection flags. */
export function connect(target: string | ConnectOptions, env: NodeJS.ProcessEnv = process.env): SyncWorkerClient {
  const o = typeof target === "string" ? { address: target } : target;
  if (Boolean(o.cert) !== Boolean(o.key)) throw new Error("--cert and --key go together");
  const tls = o.tls || Boolean(o.ca || o.cert || o.serverName);
  const read = (file: string | undefined): Buffer | null => (file ? readFileSync(file) : null);
  const channel = tls ? credentials.createSsl(read(o.ca), read(o.key), read(o.cert)) : credentials.createInsecure();
  const token = tokenOf(o, env);
  const options: ChannelOptions & { interceptors?: Interceptor[] } = {
    ...(o.serverName ? { "grpc.ssl_target_name_override": o.serverName, "grpc.default_authority": o.serverName } : {}),
    ...(token ? { interceptors: [bearer(token)] } : {}),
  };
  return new SyncWorkerClient(formatHostPort(parseHostPort("address", o.address)), channel, options);
}

type Callback<Res> = (err: Error | null, res: Res) => void;

function promised<Res>(start: (callback: Callback<Res>) => unknown): Promise<Res> {
  return new Promise((resolve, reject) => start((err, res) => (err ? reject(err) : resolve(res))));
}

/** The unary methods of the generated client as promises. */
export const rpc = {
  update: (c: SyncWorkerClient, req: UpdateRequest) => promised<UpdateResponse>((cb) => c.update(req, cb)),
  getStatus: (c: SyncWorkerClient) => promised<GetStatusResponse>((cb) => c.getStatus({}, cb)),
  notify: (c: SyncWorkerClient, message: string) =>
    promised<NotifyResourceActivityResponse>((cb) => c.notifyResourceActivity({ message }, cb)),
};

/** JSON as the proto3 JSON mapping prints it (camelCase fields, enums by name). */
export function statusJson(status: SyncWorkerStatus | undefined): unknown {
  return status ? SyncWorkerStatus.toJSON(status) : {};
}

/** True when `status` shows `version` (or any version) fully applied without failure. */
export function isComplete(status: SyncWorkerStatus, version: string): boolean {
  return (
    status.completed >= 1 &&
    !status.failure &&
    !status.loadPayloadStatus?.failure &&
    status.done === status.total &&
    (version === "" || status.actual?.version === version)
  );
}
