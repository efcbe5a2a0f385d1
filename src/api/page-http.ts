/**
 * What the admin listener's two pages share: the service's live update page (src/api/page.ts) and the fleet's
 * (src/api/fleet-page.ts). Their built files served as they are (gzipped to a browser that takes it), a request's
 * access checked as the gRPC edge checks a call, an error answered with the API's code as the HTTP status, and a
 * Server-Sent Events stream kept alive by heartbeats.
 */
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { status as Status } from "@grpc/grpc-js";
import { checkAccess, type AccessControlOptions } from "./access.js";
import { toServiceError } from "./errors.js";
import type { RpcAccess } from "./tokens.js";

/** The pages' files, built from src/page by scripts/gen-page.ts (esbuild), served as they are. */
const ASSETS = new URL("../page/assets/", import.meta.url);
const TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
/** A comment line this often keeps proxies from closing an idle stream and lets the page notice a dead one. */
const HEARTBEAT_MS = 15_000;

/** gRPC codes as HTTP statuses, for the pages' fetches. */
const HTTP_STATUS: Partial<Record<Status, number>> = {
  [Status.INVALID_ARGUMENT]: 400,
  [Status.UNAUTHENTICATED]: 401,
  [Status.PERMISSION_DENIED]: 403,
  [Status.NOT_FOUND]: 404,
  [Status.FAILED_PRECONDITION]: 409,
  [Status.RESOURCE_EXHAUSTED]: 429,
  [Status.UNAVAILABLE]: 503,
};

/** The request's path, without its query. */
export const pathOf = (req: IncomingMessage): string => (req.url ?? "/").split("?")[0] ?? "/";

/**
 * Serves `files` (request path → file name under src/page/assets) to GET; answers and returns true for one of
 * them, false for any other request. Each file is read and compressed once, on its first request; one missing from
 * the build is a 500 and a warning.
 */
export function assetRoutes(files: Readonly<Record<string, string>>, log: { warn(msg: string): void }): (req: IncomingMessage, res: ServerResponse) => boolean {
  const cache = new Map<string, Promise<{ readonly plain: Buffer; readonly gzipped: Buffer }>>();
  const asset = (file: string) => {
    let content = cache.get(file);
    if (!content) cache.set(file, (content = readFile(new URL(file, ASSETS)).then((plain) => ({ plain, gzipped: gzipSync(plain) }))));
    return content;
  };
  return (req, res) => {
    const file = files[pathOf(req)];
    if (!file || req.method !== "GET") return false;
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    void asset(file).then(
      ({ plain, gzipped }) =>
        res
          .writeHead(200, {
            "content-type": TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream",
            "cache-control": "no-cache",
            "x-content-type-options": "nosniff",
            vary: "accept-encoding",
            ...(gzip ? { "content-encoding": "gzip" } : {}),
          })
          .end(gzip ? gzipped : plain),
      (err: unknown) => {
        const message = `the page's ${file} is missing from this build: ${String(err)}`;
        log.warn(message);
        sendError(res, 500, message);
      },
    );
    return true;
  };
}

/**
 * Who may do `access`, as the gRPC edge decides it from the request's `Authorization` header; undefined when
 * refused (then answered).
 */
export async function allowed(options: AccessControlOptions, access: RpcAccess, req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  // The admin listener has no TLS: no client certificate comes with a request.
  const credentials = { authorization: req.headers.authorization, certificate: undefined };
  try {
    return await checkAccess(options, access, credentials, AbortSignal.timeout(10_000));
  } catch (err) {
    answerError(res, err);
    return undefined;
  }
}

/** A request the page got wrong (its body, its query): answered 400 INVALID_ARGUMENT. */
export class PageRequestError extends Error {}

/** An error as the API would give it: its gRPC code as an HTTP status, and `{code, message}` for the page to show. */
export function answerError(res: ServerResponse, err: unknown): void {
  if (err instanceof PageRequestError) return sendError(res, 400, err.message, "INVALID_ARGUMENT");
  const { code = Status.INTERNAL, details = String(err) } = toServiceError(err);
  sendError(res, HTTP_STATUS[code] ?? 500, details, Status[code]);
}

export function sendError(res: ServerResponse, status: number, message: string, code = "INTERNAL"): void {
  if (res.headersSent) return void res.end();
  sendJson(res, status, { code, message });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** One page's stream of events, until the page goes away (`res` closes). */
export interface EventStream {
  /** Writes one event; `written` is called once it is handed to the socket. */
  send(event: string, json: string, id?: number, written?: () => void): void;
}

/**
 * Starts a Server-Sent Events answer on `res`: the headers, the browser's own reconnect delay (the page's back-off
 * takes over after it), then a heartbeat comment every 15 s until the connection closes.
 */
export function openEventStream(res: ServerResponse): EventStream {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" });
  res.write("retry: 1000\n\n");
  const heartbeat = setInterval(() => res.write(": keep-alive\n\n"), HEARTBEAT_MS);
  res.on("close", () => clearInterval(heartbeat));
  return {
    send: (event, json, id, written) => void res.write(`${id !== undefined ? `id: ${id}\n` : ""}event: ${event}\ndata: ${json}\n\n`, () => written?.()),
  };
}
