/** Server-Sent Events read from a fetch Response, for tests of the pages' streams. */

export interface SseEvent {
  /** The `event:` field; "message" when the server gave none. */
  readonly event: string;
  /** The `id:` field, "" without one. */
  readonly id: string;
  readonly data: string;
}

/** The events of `response` as they arrive, until it ends (comments and `retry:` lines are passed over). */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent, void, undefined> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":");
        if (colon <= 0) continue;
        const name = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, "");
        fields.set(name, name === "data" && fields.has("data") ? `${fields.get("data")}\n${value}` : value);
      }
      if (fields.has("data")) yield { event: fields.get("event") ?? "message", id: fields.get("id") ?? "", data: fields.get("data") ?? "" };
    }
  }
}
