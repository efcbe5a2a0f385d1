/**
 * The page's one stream of status snapshots (Server-Sent Events over fetch, so it can carry a bearer token and see
 * 401 and 403, which EventSource hides). @microsoft/fetch-event-source resumes with `Last-Event-ID` after a drop
 * and closes the stream while the tab is hidden, reopening it from the last revision when it is shown again; the
 * back-off between attempts is ours: doubling from 1 s to 30 s, never retrying a refusal. A page holds one stream,
 * so a browser's six connections per origin are never reached by one page.
 */
import { fetchEventSource } from "@microsoft/fetch-event-source";
import type { StatusJson } from "./status.js";

export type StreamState =
  | { readonly kind: "connecting" }
  | { readonly kind: "live" }
  | { readonly kind: "retrying"; readonly inMs: number; readonly why: string }
  | { readonly kind: "refused"; readonly status: number; readonly why: string };

export interface StreamHandlers {
  readonly status: (status: StatusJson, revision: number) => void;
  readonly state: (state: StreamState) => void;
}

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

/** Stops retrying: the server refused the page (401, 403), which a retry would not change. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Opens the stream until `signal` aborts; `token` is sent as a bearer token when there is one. */
export function openStream(token: string | undefined, handlers: StreamHandlers, signal: AbortSignal): void {
  let retryMs = FIRST_RETRY_MS;
  let lastRevision = 0;
  handlers.state({ kind: "connecting" });
  void fetchEventSource("/api/v1/status/stream", {
    signal,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    async onopen(response) {
      if (response.ok && response.headers.get("content-type")?.startsWith("text/event-stream")) {
        retryMs = FIRST_RETRY_MS;
        handlers.state({ kind: "live" });
        return;
      }
      const body = await response.text();
      const why = messageOf(body) || `HTTP ${response.status}`;
      if (response.status === 401 || response.status === 403) throw new Refused(response.status, why);
      throw new Error(why);
    },
    onmessage(message) {
      if (message.event !== "status") return;
      const revision = Number(message.id);
      // The server sends only revisions after Last-Event-ID; this guard keeps the promise whatever happens.
      if (!(revision > lastRevision)) return;
      lastRevision = revision;
      handlers.status(JSON.parse(message.data) as StatusJson, revision);
    },
    onclose() {
      // The server ended the stream (it is stopping): reconnect as after a drop.
      throw new Error("the server closed the stream");
    },
    onerror(err: unknown) {
      if (err instanceof Refused) {
        handlers.state({ kind: "refused", status: err.status, why: err.message });
        throw err;
      }
      const inMs = retryMs;
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      handlers.state({ kind: "retrying", inMs, why: err instanceof Error ? err.message : String(err) });
      return inMs;
    },
  }).catch(() => undefined);
}

/** The `message` of the API's JSON error body, if it is one. */
export function messageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed.message === "string" ? parsed.message : "";
  } catch {
    return body.slice(0, 200);
  }
}
