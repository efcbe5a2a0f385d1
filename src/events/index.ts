/** CloudEvents about the update for `--event-sink`s: what happened (derive.ts), as CloudEvents (publisher.ts), delivered (sink.ts). */
export { deriveEvents, EVENT_KINDS, type DeriveMemory, type DerivedEvent, type EventKind } from "./derive.js";
export { EventPublisher } from "./publisher.js";
export { EventSink, type EventSinkMetrics, type EventSinkOptions } from "./sink.js";
