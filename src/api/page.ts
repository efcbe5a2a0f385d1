/**
 * The live update page on the admin listener: `/` and its two assets, one Server-Sent Events stream of status
 * snapshots per page, and Pause/Resume. The stream's messages are the API's own `SyncWorkerStatus` in its JSON
 * form (the contract StatusWatch streams, no Kubernetes types), its event ids the snapshots' revisions, so a page
 * that lost its stream resumes with `Last-Event-ID` and never sees a revision twice. Reading needs the reader role
 * and the buttons the writer role, checked as the gRPC API checks them (bearer tokens; the admin listener has no
 * TLS, so a server that authenticates by client certificate refuses the page's requests as unauthenticated).
 */
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { status as Status } from "@grpc/grpc-js";
import { SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { SyncService } from "../service/index.js";
import { checkAccess, RPC_ACCESS, type AccessControlOptions } from "./access.js";
import { toProtoStatus } from "./convert.js";
import { toServiceError } from "./errors.js";
import type { RpcAccess } from "./tokens.js";

/** The page's files, built from src/page by `npm run gen:page` (esbuild), served as they are. */
const ASSETS = new URL("../page/assets/", import.meta.url);
const FILES: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/page/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/page/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};
/** A comment line this often keeps proxies from closing an idle stream and lets the page notice a dead one. */
const HEARTBEAT_MS = 15_000;
/** A pause reason is one line of the status; longer bodies are refused unread. */
const MAX_BODY_BYTES = 4096;

/** gRPC codes as HTTP statuses, for the page's fetches. */
const HTTP_STATUS: Partial<Record<Status, number>> = {
  [Status.INVALID_ARGUMENT]: 400,
  [Status.UNAUTHENTICATED]: 401,
  [Status.PERMISSION_DENIED]: 403,
  [Status.FAILED_PRECONDITION]: 409,
  [Status.RESOURCE_EXHAUSTED]: 429,
  [Status.UNAVAILABLE]: 503,
};

export interface PageDeps {
  readonly service: Pick<SyncService, "latest" | "subscribe" | "pause" | "resume" | "cancel">;
  readonly access: AccessControlOptions;
  readonly log: { warn(msg: string): void };
}

/** The page's routes; answers and returns true for a request it serves, false for any other. */
export function pageRoutes(deps: PageDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  // Read and compressed once: the script is 24 KB as built and 10 KB gzipped.
  const cache = new Map<string, Promise<{ readonly plain: Buffer; readonly gzipped: Buffer }>>();
  const asset = (file: string) => {
    let content = cache.get(file);
    if (!content) cache.set(file, (content = readFile(new URL(file, ASSETS)).then((plain) => ({ plain, gzipped: gzipSync(plain) }))));
    return content;
  };
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const file = FILES[path];
    if (file && req.method === "GET") {
      const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
      void asset(file.file).then(
        ({ plain, gzipped }) =>
          res
            .writeHead(200, {
              "content-type": file.type,
              "cache-control": "no-cache",
              "x-content-type-options": "nosniff",
              vary: "accept-encoding",
              ...(gzip ? { "content-encoding": "gzip" } : {}),
            })
            .end(gzip ? gzipped : plain),
        (err: unknown) => sendError(res, 500, `the page's ${file.file} is missing from this build: ${String(err)}`),
      );
      return true;
    }
    if (path === "/api/v1/status/stream" && req.method === "GET") {
      void stream(deps, req, res);
      return true;
    }
    const action = ACTIONS.find((a) => path === `/api/v1/${a}`);
    if (action && req.method === "POST") {
      void act(deps, action, req, res);
      return true;
    }
    return false;
  };
}

/** Who may do `access`, as the gRPC edge decides it from the request's `Authorization` header; undefined when refused (answered). */
async function allowed(deps: PageDeps, access: RpcAccess, req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  // The admin listener has no TLS: no client certificate comes with a request.
  const credentials = { authorization: req.headers.authorization, certificate: undefined };
  try {
    return await checkAccess(deps.access, access, credentials, AbortSignal.timeout(10_000));
  } catch (err) {
    answerError(res, err);
    return undefined;
  }
}

async function stream(deps: PageDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if ((await allowed(deps, RPC_ACCESS.statusWatch, req, res)) === undefined) return;
  const lastSeen = Number(req.headers["last-event-id"] ?? 0);
  const since = Number.isSafeInteger(lastSeen) && lastSeen > 0 ? lastSeen : 0;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" });
  // The browser waits this long before it reconnects on its own; the page's own back-off takes over after that.
  res.write("retry: 1000\n\n");
  const unsubscribe = deps.service.subscribe(since, (snapshot, done) => {
    const json = JSON.stringify(SyncWorkerStatus.toJSON(toProtoStatus(snapshot)));
    res.write(`id: ${snapshot.revision}\nevent: status\ndata: ${json}\n\n`, () => done());
  });
  const heartbeat = setInterval(() => res.write(": keep-alive\n\n"), HEARTBEAT_MS);
  res.on("close", () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
}

const ACTIONS = ["pause", "resume", "cancel"] as const;
type Action = (typeof ACTIONS)[number];
const ACTION_ACCESS: Readonly<Record<Action, RpcAccess>> = { pause: RPC_ACCESS.pauseUpdate, resume: RPC_ACCESS.resumeUpdate, cancel: RPC_ACCESS.cancelUpdate };

async function act(deps: PageDeps, action: Action, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const who = await allowed(deps, ACTION_ACCESS[action], req, res);
  if (who === undefined) return;
  // A rollback is an Update: its payload load stops when the page goes away, as an Update's does.
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  try {
    const body = bodyFields(await readBody(req));
    const snapshot =
      action === "pause"
        ? await deps.service.pause(who, stringField(body, "reason"))
        : action === "resume"
          ? await deps.service.resume()
          : (await deps.service.cancel(body["rollback"] === true, gone.signal)).snapshot;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(SyncWorkerStatus.toJSON(toProtoStatus(snapshot))));
  } catch (err) {
    answerError(res, err);
  }
}

/** The JSON object a button sends (`{"reason": "…"}`, `{"rollback": true}`), or none. */
function bodyFields(body: string): Record<string, unknown> {
  if (body.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new PageRequestError('the body must be a JSON object, e.g. {"reason": "…"}');
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new PageRequestError("the body must be a JSON object");
  return parsed as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name] ?? "";
  if (typeof value !== "string") throw new PageRequestError(`"${name}" must be a string`);
  return value;
}

class PageRequestError extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new PageRequestError(`the body is over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** An error as the API would give it: its gRPC code as an HTTP status, and `{code, message}` for the page to show. */
function answerError(res: ServerResponse, err: unknown): void {
  if (err instanceof PageRequestError) return sendError(res, 400, err.message, "INVALID_ARGUMENT");
  const { code = Status.INTERNAL, details = String(err) } = toServiceError(err);
  sendError(res, HTTP_STATUS[code] ?? 500, details, Status[code]);
}

function sendError(res: ServerResponse, status: number, message: string, code = "INTERNAL"): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ code, message }));
}
