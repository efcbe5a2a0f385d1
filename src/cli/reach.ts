/**
 * Reaching the service: every client command connects first, within `--connect-timeout`, so a server that is not
 * there ends the command at once (exit 4) instead of leaving it waiting (a watch's empty bar). Why it failed is said
 * in words a person can act on: grpc-js reports every failure as UNAVAILABLE "No connection established. Last
 * error: … Resolution note:" (a plaintext client against a TLS server as a bare "Failed to connect"), so after a
 * failed connect the CLI looks for itself: TCP, then a TLS handshake, then a plaintext HTTP/2 one. The probe runs
 * only after grpc-js failed, never on the way to a working call.
 */
import { connect as tcpConnect, isIP } from "node:net";
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate } from "node:tls";
import { connect as h2Connect } from "node:http2";
import { Code, SyncWorkerError, type SyncWorkerClient, type TlsOptions } from "@syncworker/client";
import { formatHostPort, parseDuration, type HostPort } from "../config/index.js";
import { deadline } from "../core/index.js";
import { connect, DEFAULT_CONNECT_TIMEOUT, type ConnectOptions } from "./connect.js";
import { CliError, ExitCode } from "./exit-codes.js";

/** What errno codes of a TCP connect mean. */
const CONNECT_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused: nothing listens there",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name does not resolve now",
  EHOSTUNREACH: "no route to the host",
  ENETUNREACH: "the network is unreachable",
  ETIMEDOUT: "the connection timed out",
  ECONNRESET: "the connection was reset",
};

/** What OpenSSL's verification codes mean for the server's certificate. */
const UNTRUSTED: Readonly<Record<string, string>> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "no CA trusted here signed it; pass the one that did with --ca",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "no CA trusted here signed it; pass the one that did with --ca",
  SELF_SIGNED_CERT_IN_CHAIN: "its chain ends in a CA not trusted here; pass it with --ca",
  DEPTH_ZERO_SELF_SIGNED_CERT: "it is self-signed; pass it with --ca to trust it",
  CERT_HAS_EXPIRED: "it has expired",
  CERT_NOT_YET_VALID: "it is not valid yet",
};

/** How one step of the probe ended: it worked, failed with an error, or got no answer before the signal. */
type Outcome<T> = { readonly ok: T } | { readonly error: Error } | { readonly silent: true };

/**
 * Runs `start` until it settles or `signal` aborts; the cleanup `start` returns (closing its socket) always runs.
 * Errors after that are ignored: `start` keeps its "error" listener on, so a late one does not crash the process.
 */
function step<T>(signal: AbortSignal, start: (ok: (value: T) => void, fail: (err: Error) => void) => () => void): Promise<Outcome<T>> {
  if (signal.aborted) return Promise.resolve({ silent: true });
  return new Promise((resolve) => {
    let cleanup = (): void => undefined;
    let settled = false;
    const settle = (outcome: Outcome<T>): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", silent);
      cleanup();
      resolve(outcome);
    };
    const silent = (): void => settle({ silent: true });
    signal.addEventListener("abort", silent, { once: true });
    cleanup = start(
      (ok) => settle({ ok }),
      (error) => settle({ error }),
    );
  });
}

function tcp(at: HostPort, signal: AbortSignal): Promise<Outcome<true>> {
  return step<true>(signal, (ok, fail) => {
    const socket = tcpConnect({ host: at.host, port: at.port });
    socket.once("connect", () => ok(true)).on("error", fail);
    return () => socket.destroy();
  });
}

/** A TLS handshake over a fresh connection, verifying against `tls`' CA: the peer's certificate and why it is not trusted. */
function handshake(at: HostPort, tls: TlsOptions, signal: AbortSignal): Promise<Outcome<{ cert: PeerCertificate; untrusted?: string }>> {
  return step(signal, (ok, fail) => {
    // No SNI for an IP address (RFC 6066; Node warns about it).
    const servername = tls.serverName ?? (isIP(at.host) ? undefined : at.host);
    const socket = tlsConnect({
      host: at.host,
      port: at.port,
      servername,
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      ALPNProtocols: ["h2"],
      rejectUnauthorized: false,
    });
    socket.once("secureConnect", () =>
      ok({ cert: socket.getPeerCertificate(), ...(socket.authorized ? {} : { untrusted: String(socket.authorizationError) }) }),
    );
    socket.on("error", fail);
    return () => socket.destroy();
  });
}

/** A plaintext HTTP/2 connection: true once the server sent its SETTINGS, as a gRPC server without TLS does. */
function plaintextHttp2(at: HostPort, signal: AbortSignal): Promise<Outcome<true>> {
  return step<true>(signal, (ok, fail) => {
    const session = h2Connect(`http://${formatHostPort(at)}`);
    session.once("remoteSettings", () => ok(true));
    session.on("error", fail);
    return () => session.destroy();
  });
}

/**
 * Why a gRPC connection to `at` (over TLS when `tls` is set) fails, in one phrase; undefined when the probe finds
 * nothing wrong (the server speaks what the client does). Ends when `signal` aborts, saying what did not answer.
 */
export async function diagnose(at: HostPort, tls: TlsOptions | undefined, signal: AbortSignal): Promise<string | undefined> {
  const connected = await tcp(at, signal);
  if ("silent" in connected) return "no TCP connection in time";
  if ("error" in connected) {
    const code = (connected.error as NodeJS.ErrnoException).code ?? "";
    return CONNECT_ERRORS[code] ? `${CONNECT_ERRORS[code]} (${code})` : connected.error.message;
  }
  const secure = await handshake(at, tls ?? {}, signal);
  if ("ok" in secure) {
    if (!tls) return "the server speaks TLS; connect with --tls, or --ca <file> when its certificate is from a private CA";
    const name = tls.serverName ?? at.host;
    const { untrusted, cert } = secure.ok;
    if (untrusted === "ERR_TLS_CERT_ALTNAME_INVALID")
      return `the server's certificate does not name ${name} (${checkServerIdentity(name, cert)?.message ?? untrusted}); see --server-name`;
    if (untrusted) return `the server's certificate is not trusted: ${UNTRUSTED[untrusted] ?? "verification failed"} (${untrusted})`;
    return undefined;
  }
  const plain = await plaintextHttp2(at, signal);
  if ("ok" in plain) return tls ? "the server speaks plaintext, not TLS; connect without --tls, --ca, --cert and --server-name" : undefined;
  if ("silent" in secure && "silent" in plain) return "the server accepts connections but does not answer";
  return "the server speaks neither TLS nor HTTP/2: is this the gRPC address (not the admin or metrics one)?";
}

/**
 * A client of the connection flags, connected: within `--connect-timeout`, or a {@link CliError} (exit 4) naming the
 * address, what was tried and why it failed, in one line.
 */
export async function reach(o: ConnectOptions, signal?: AbortSignal): Promise<SyncWorkerClient> {
  const timeout = o.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT;
  const bounded = deadline(parseDuration("connect-timeout", timeout), signal);
  const { client, at, tls } = connect(o);
  try {
    await client.connect({ signal: bounded.signal });
    return client;
  } catch (err) {
    client.close();
    if (signal?.aborted) throw err;
    const tried = `cannot reach syncworker at ${formatHostPort(at)} (gRPC ${tls ? "over TLS" : "in plaintext"})`;
    const timedOut = bounded.signal.aborted || (err instanceof SyncWorkerError && err.code === Code.DeadlineExceeded);
    const why = timedOut ? `no connection within --connect-timeout ${timeout}` : ((await diagnose(at, tls, bounded.signal)) ?? "the connection failed");
    throw new CliError(ExitCode.Unreachable, `${tried}: ${why}`, { cause: err });
  } finally {
    bounded.dispose();
  }
}
