/**
 * Turns the leader's snapshots into CloudEvents 1.0 (`io.syncworker.<kind>.v1`, see derive.ts) for every
 * `--event-sink`. Each carries the snapshot's revision (data and the `sequence` extension; revisions only grow, across
 * restarts and leaders too), the release, the component where there is one, and the sync pass's trace context as the
 * `traceparent` extension (W3C Trace Context, CloudEvents' Distributed Tracing extension), so a consumer can open the
 * trace. A completed update is also told as a CDEvent: `dev.cdevents.service.deployed` for the first release,
 * `…service.upgraded` after.
 */
import { randomUUID } from "node:crypto";
import { CloudEvent } from "cloudevents";
import type { Logger, SpanRef } from "../core/index.js";
import type { ServiceStatus, Snapshot } from "../status/index.js";
import { deriveEvents, type DeriveMemory, type DerivedEvent, type EventKind } from "./derive.js";
import type { EventSink, JsonEvent } from "./sink.js";

/** The CDEvents specification version the CDEvents follow. */
const CDEVENTS_SPEC = "0.4.1";

export class EventPublisher {
  #previous: ServiceStatus | undefined;
  #memory: DeriveMemory = {};
  #leading = false;

  /**
   * @param source the events' `source` (`--event-source`): which syncworker, the same across restarts
   * @param identity this process's leader-election identity, to tell its own leadership apart
   * @param latest the service's latest snapshot, told as the current state when this process starts leading
   */
  constructor(
    private readonly source: string,
    private readonly identity: string,
    private readonly sinks: readonly EventSink[],
    private readonly latest: () => Snapshot<ServiceStatus>,
    private readonly log: Pick<Logger, "warn">,
  ) {}

  /** The current state, as the first event of a process (or a term) that leads: consumers resynchronise on it. */
  resync(): void {
    this.#previous = undefined;
    this.observe(this.latest(), undefined);
  }

  /** A snapshot the leader published; `trace` is its sync pass's. */
  observe(snapshot: Snapshot<ServiceStatus>, trace: SpanRef | undefined): void {
    const { events: derived, memory } = deriveEvents(this.#previous, snapshot.value, this.#memory);
    this.#previous = snapshot.value;
    this.#memory = memory;
    derived.forEach((event, i) => {
      this.#send(() => this.#cloudEvent(event, `${snapshot.revision}.${i}`, snapshot, trace), snapshot.publishedAt);
      if (event.kind === "update.completed") this.#send(() => this.#cdEvent(event, snapshot), snapshot.publishedAt);
    });
  }

  /** The election saw `leader` lead ("" for none): this process's own start or end of leading is told. */
  leader(leader: string): void {
    const leading = leader === this.identity;
    if (leading === this.#leading) return;
    this.#leading = leading;
    const kind: EventKind = leading ? "leader.elected" : "leader.lost";
    const now = new Date();
    this.#send(
      () =>
        new CloudEvent<Readonly<Record<string, unknown>>>({
          specversion: "1.0",
          type: type(kind),
          source: this.source,
          id: randomUUID(),
          time: now.toISOString(),
          subject: this.identity,
          datacontenttype: "application/json",
          data: { identity: this.identity, leader },
        }),
      now.getTime(),
    );
    // A new term starts from the saved state, which consumers are told first.
    if (leading) this.resync();
  }

  /** Builds the event (the SDK validates it) and queues it for every sink; one that does not validate is logged, never thrown at the service. */
  #send(build: () => JsonEvent, madeAt: number): void {
    let event: JsonEvent;
    try {
      event = build();
    } catch (err) {
      this.log.warn(`an event was not made: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    for (const sink of this.sinks) sink.push(event, madeAt);
  }

  #cloudEvent(event: DerivedEvent, id: string, snapshot: Snapshot<ServiceStatus>, trace: SpanRef | undefined): JsonEvent {
    return new CloudEvent<Readonly<Record<string, unknown>>>({
      specversion: "1.0",
      type: type(event.kind),
      source: this.source,
      id,
      time: new Date(snapshot.publishedAt).toISOString(),
      ...(event.subject ? { subject: event.subject } : {}),
      datacontenttype: "application/json",
      data: { revision: snapshot.revision, ...event.data },
      sequence: String(snapshot.revision),
      ...(trace ? { traceparent: traceparent(trace) } : {}),
    });
  }

  /** The CDEvents `service.deployed` / `service.upgraded` for a completed update: the release is the artifact, the cluster the environment. */
  #cdEvent(event: DerivedEvent, snapshot: Snapshot<ServiceStatus>): JsonEvent {
    const release = event.data["release"] as { version: string; image: string };
    const cdType = `dev.cdevents.service.${event.data["firstInstall"] ? "deployed" : "upgraded"}.0.2.0`;
    const id = `${snapshot.revision}.cdevent`;
    const timestamp = new Date(snapshot.publishedAt).toISOString();
    return new CloudEvent<Readonly<Record<string, unknown>>>({
      specversion: "1.0",
      type: cdType,
      source: this.source,
      id,
      time: timestamp,
      subject: "release",
      datacontenttype: "application/json",
      data: {
        context: { version: CDEVENTS_SPEC, id, source: this.source, type: cdType, timestamp },
        subject: {
          id: "release",
          source: this.source,
          type: "service",
          content: { environment: { id: this.source }, artifactId: artifactId(release) },
        },
      },
    });
  }
}

const type = (kind: EventKind): string => `io.syncworker.${kind}.v1`;

/** W3C `traceparent`: version 00, the trace and span ids, the flags in two hex digits. */
function traceparent(ref: SpanRef): string {
  return `00-${ref.traceId}-${ref.spanId}-${ref.traceFlags.toString(16).padStart(2, "0")}`;
}

/** A package URL for the release: an image by digest as `pkg:oci`, anything else (a directory) as `pkg:generic`. */
function artifactId(release: { version: string; image: string }): string {
  const at = release.image.lastIndexOf("@");
  if (at > 0 && release.image.slice(at + 1).startsWith("sha256:")) {
    const repository = release.image.slice(0, at);
    const name = repository.slice(repository.lastIndexOf("/") + 1);
    return `pkg:oci/${encodeURIComponent(name)}@${encodeURIComponent(release.image.slice(at + 1))}?repository_url=${encodeURIComponent(repository)}`;
  }
  return `pkg:generic/release@${encodeURIComponent(release.version || release.image)}`;
}
