import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { FleetClient, SyncWorkerClient, type ClientOptions, type TlsOptions } from "@syncworker/client";
import { formatHostPort, parseHostPort, ValueError, type HostPort } from "../config/index.js";

export const DEFAULT_ADDRESS = "127.0.0.1:50051";
export const DEFAULT_CONNECT_TIMEOUT = "5s";

/** How the CLI reaches the service: its address, TLS settings and a bearer token (the connection flags). */
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
  /** How long to wait for a connection before giving up, as a duration ("5s"); default {@link DEFAULT_CONNECT_TIMEOUT}. */
  readonly connectTimeout?: string;
}

/** The token from --token, else --token-file, else $SYNCWORKER_TOKEN; undefined when none is set. */
function tokenOf(o: ConnectOptions, env: NodeJS.ProcessEnv): string | undefined {
  if (o.token && o.tokenFile) throw new ValueError("token", "give --token or --token-file, not both");
  const token = o.token ?? (o.tokenFile ? readFileSync(o.tokenFile, "utf8").trim() : env["SYNCWORKER_TOKEN"]);
  return token || undefined;
}

/** The TLS settings of the flags, with the PEM files read; undefined for plaintext. */
function tlsOf(o: ConnectOptions): TlsOptions | undefined {
  if (Boolean(o.cert) !== Boolean(o.key)) throw new ValueError(o.cert ? "cert" : "key", "--cert and --key go together");
  if (!(o.tls || o.ca || o.cert || o.serverName)) return undefined;
  const read = (file: string | undefined): Buffer | undefined => (file ? readFileSync(file) : undefined);
  return { ca: read(o.ca), cert: read(o.cert), key: read(o.key), serverName: o.serverName };
}

/** The client for the CLI's connection flags, with the address and TLS settings it uses. */
export interface Connection {
  readonly client: SyncWorkerClient;
  readonly at: HostPort;
  /** Undefined for plaintext. */
  readonly tls: TlsOptions | undefined;
}

/** The address, TLS settings and client options of the connection flags; the token falls back to $SYNCWORKER_TOKEN. */
function channelOf(o: ConnectOptions, env: NodeJS.ProcessEnv): { at: HostPort; tls: TlsOptions | undefined; options: ClientOptions } {
  const at = parseHostPort("address", o.address);
  const tls = tlsOf(o);
  const token = tokenOf(o, env);
  if (tls && !tls.serverName && isIP(at.host)) dropIpServerNameWarning();
  return { at, tls, options: { ...(tls ? { tls } : {}), ...(token ? { token } : {}) } };
}

/** The TypeScript client for the CLI's connection flags. */
export function connect(o: ConnectOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const { at, tls, options } = channelOf(o, env);
  return { client: new SyncWorkerClient(formatHostPort(at), options), at, tls };
}

/** The fleet controller's client (FleetWatch) for the same connection flags. */
export function connectFleet(o: ConnectOptions, env: NodeJS.ProcessEnv = process.env): FleetClient {
  const { at, options } = channelOf(o, env);
  return new FleetClient(formatHostPort(at), options);
}

let ipWarningDropped = false;

/**
 * grpc-js sends the address's host as the TLS server name (SNI) even when it is an IP address, and Node warns about
 * that once per process (DEP0123, "not permitted by RFC 6066"). The warning is about grpc-js, not about anything a
 * user can change, so the CLI drops that one warning and leaves every other one alone.
 */
function dropIpServerNameWarning(): void {
  if (ipWarningDropped) return;
  ipWarningDropped = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = (...args: unknown[]): void => {
    const [, type, code] = args;
    const named = typeof type === "object" && type !== null ? (type as { code?: unknown }).code : code;
    if (named !== "DEP0123") emitWarning(...args);
  };
}
