/**
 * The live update page on the admin listener: `/` and its two assets, one Server-Sent Events stream of status
 * snapshots per page, and Pause/Resume. The stream's messages are the API's own `SyncWorkerStatus` in its JSON
 * form (the contract StatusWatch streams, no Kubernetes types), its event ids the snapshots' revisions, so a page
 * that lost its stream resumes with `Last-Event-ID` and never sees a revision twice. Reading needs the reader role
 * and the buttons the writer role, checked as the gRPC API checks them (bearer tokens; the admin listener has no
 * TLS, so a server that authenticates by client certificate refuses the page's requests as unauthenticated).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { SyncService } from "../service/index.js";
import { RPC_ACCESS, type AccessControlOptions } from "./access.js";
import { toProtoStatus } from "./convert.js";
import { allowed, answerError, assetRoutes, openEventStream, PageRequestError, pathOf, sendJson } from "./page-http.js";
import type { RpcAccess } from "./tokens.js";

/** The page's files (src/page/assets, built by scripts/gen-page.ts) by the paths the page asks for them. */
const FILES: Readonly<Record<string, string>> = { "/": "index.html", "/page/app.js": "app.js", "/page/app.css": "app.css" };
/** A pause reason is one line of the status; longer bodies are refused unread. */
const MAX_BODY_BYTES = 4096;

export interface PageDeps {
  readonly service: Pick<SyncService, "latest" | "subscribe" | "pause" | "resume" | "cancel">;
  readonly access: AccessControlOptions;
  readonly log: { warn(msg: string): void };
}

/** The page's routes; answers and returns true for a request it serves, false for any other. */
export function pageRoutes(deps: PageDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  // Read and compressed once: the script is 24 KB as built and 10 KB gzipped.
  const assets = assetRoutes(FILES, deps.log);
  return (req, res) => {
    if (assets(req, res)) return true;
    const path = pathOf(req);
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

async function stream(deps: PageDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if ((await allowed(deps.access, RPC_ACCESS.statusWatch, req, res)) === undefined) return;
  const lastSeen = Number(req.headers["last-event-id"] ?? 0);
  const since = Number.isSafeInteger(lastSeen) && lastSeen > 0 ? lastSeen : 0;
  const events = openEventStream(res);
  const unsubscribe = deps.service.subscribe(since, (snapshot, done) =>
    events.send("status", JSON.stringify(SyncWorkerStatus.toJSON(toProtoStatus(snapshot))), snapshot.revision, done),
  );
  res.on("close", unsubscribe);
}

const ACTIONS = ["pause", "resume", "cancel"] as const;
type Action = (typeof ACTIONS)[number];
const ACTION_ACCESS: Readonly<Record<Action, RpcAccess>> = { pause: RPC_ACCESS.pauseUpdate, resume: RPC_ACCESS.resumeUpdate, cancel: RPC_ACCESS.cancelUpdate };

async function act(deps: PageDeps, action: Action, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const who = await allowed(deps.access, ACTION_ACCESS[action], req, res);
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
    sendJson(res, 200, SyncWorkerStatus.toJSON(toProtoStatus(snapshot)));
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
