import { readFileSync } from "node:fs";
import { SyncWorkerClient, type TlsOptions } from "@syncworker/client";
import { formatHostPort, parseHostPort } from "../config/index.js";

export const DEFAULT_ADDRESS = "127.0.0.1:50051";

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
}

/** The token from --token, else --token-file, else $SYNCWORKER_TOKEN; undefined when none is set. */
function tokenOf(o: ConnectOptions, env: NodeJS.ProcessEnv): string | undefined {
  if (o.token && o.tokenFile) throw new Error("give --token or --token-file, not both");
  const token = o.token ?? (o.tokenFile ? readFileSync(o.tokenFile, "utf8").trim() : env["SYNCWORKER_TOKEN"]);
  return token || undefined;
}

/** The TLS settings of the flags, with the PEM files read; undefined for plaintext. */
function tlsOf(o: ConnectOptions): TlsOptions | undefined {
  if (Boolean(o.cert) !== Boolean(o.key)) throw new Error("--cert and --key go together");
  if (!(o.tls || o.ca || o.cert || o.serverName)) return undefined;
  const read = (file: string | undefined): Buffer | undefined => (file ? readFileSync(file) : undefined);
  return { ca: read(o.ca), cert: read(o.cert), key: read(o.key), serverName: o.serverName };
}

/** The TypeScript client for the CLI's connection flags; the token falls back to $SYNCWORKER_TOKEN. */
export function connect(o: ConnectOptions, env: NodeJS.ProcessEnv = process.env): SyncWorkerClient {
  const address = formatHostPort(parseHostPort("address", o.address));
  const tls = tlsOf(o);
  const token = tokenOf(o, env);
  return new SyncWorkerClient(address, { ...(tls ? { tls } : {}), ...(token ? { token } : {}) });
}
