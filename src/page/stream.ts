/**
 * A page's one stream (Server-Sent Events over fetch, so it can carry a bearer token and see 401 and 403, which
 * EventSource hides), shared by the update page (status snapshots) and the fleet page (a rollout's views).
 * @microsoft/fetch-event-source resumes with `Last-Event-ID` after a drop when the server gave ids, and closes the
 * stream while the tab is hidden, reopening it when it is shown again; the back-off between attempts is ours:
 * doubling from 1 s to 30 s, never retrying a refusal. A page holds one stream, so a browser's six connections per
 * origin are never reached by one page.
 */
import { fetchEventSource } from "@microsoft/fetch-event-source";

export type StreamState =
  | { readonly kind: "connecting" }
  | { readonly kind: "live" }
  | { readonly kind: "retrying"; readonly inMs: number; readonly why: string }
  | { readonly kind: "refused"; readonly status: number; readonly why: string };

/** Takes one message's data (its JSON parsed) and its id ("" when the server gave none). */
export type EventHandler = (data: unknown, id: string) => void;

export interface StreamHandlers {
  /** By event name: what to do with each message of that event. Messages of other events are passed over. */
  readonly events: Readonly<Record<string, EventHandler>>;
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

/** Opens the stream at `path` until `signal` aborts; `token` is sent as a bearer token when there is one. */
export function openStream(path: string, token: string | undefined, handlers: StreamHandlers, signal: AbortSignal): void {
  let retryMs = FIRST_RETRY_MS;
  handlers.state({ kind: "connecting" });
  void fetchEventSource(path, {
    signal,
    headers: authorization(token),
    async onopen(response) {
      if (response.ok && response.headers.get("content-type")?.startsWith("text/event-stream")) {
        retryMs = FIRST_RETRY_MS;
        handlers.state({ kind: "live" });
        return;
      }
      const why = await whyRefused(response);
      if (isRefusal(response.status)) throw new Refused(response.status, why);
      throw new Error(why);
    },
    onmessage(message) {
      handlers.events[message.event]?.(JSON.parse(message.data), message.id);
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

/**
 * A handler for a stream whose ids are revisions (the update page's snapshots): it passes on only a revision above
 * the last it passed on. The server sends only revisions after Last-Event-ID; this guard keeps the promise, never one
 * twice, whatever happens.
 */
export function inRevisionOrder<T>(handle: (data: T, revision: number) => void): EventHandler {
  let lastRevision = 0;
  return (data, id) => {
    const revision = Number(id);
    if (!(revision > lastRevision)) return;
    lastRevision = revision;
    handle(data as T, revision);
  };
}

/** The request headers that carry `token`, if there is one. */
export const authorization = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** A refusal: the server wants a token, or another one. */
export const isRefusal = (status: number): boolean => status === 401 || status === 403;

/** Why the server said no: the `message` of the API's JSON error body, else its HTTP status. */
export async function whyRefused(response: Response): Promise<string> {
  return messageOf(await response.text()) || `HTTP ${response.status}`;
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
