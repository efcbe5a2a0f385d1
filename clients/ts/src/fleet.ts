import { connection, type ClientOptions } from "./connection.js";
import { FleetClient as GeneratedFleetClient, MemberView, RolloutView, type FleetWatchRequest, type FleetWatchResponse } from "./gen/syncworker/v1/fleet.js";
import { reconnecting, type ReconnectOptions } from "./reconnect.js";

/** Options of {@link FleetClient.watchFleet}: which rollout, where to resume, and how to reconnect. */
export interface FleetWatchOptions extends ReconnectOptions {
  /** The rollout's name on the hub. */
  readonly rollout: string;
  /** The rollout's namespace; default "": the server's --namespace. */
  readonly namespace?: string;
  /**
   * Resume: per member, the last revision seen (`MemberView.revision`), e.g. a previous watch's `cursors()`. The
   * server then sends only the members that changed since. Default: none, every member is sent.
   */
  readonly cursors?: ReadonlyMap<string, number> | Readonly<Record<string, number>>;
  /** Also carry each member's full SyncWorkerStatus (`MemberView.status`). Default false. */
  readonly fullStatus?: boolean;
}

/** A running fleet watch: the events as an async iterator, and the cursor per member it stands at. */
export interface FleetWatch extends AsyncGenerator<FleetWatchResponse, void, undefined> {
  /**
   * Per member, the revision of the last view yielded (or the starting cursor given for it): a copy, to pass as
   * `cursors` to a later watch that picks up where this one stopped.
   */
  cursors(): Map<string, number>;
}

/**
 * A client of the fleet's hub (service `syncworker.v1.Fleet`, served by `syncworker fleet`): one resuming watch of a
 * rollout and its members. Same options as {@link SyncWorkerClient} (TLS, token); `timeoutMs` has no use here yet,
 * as FleetWatch is a stream without a deadline. Errors are always {@link SyncWorkerError}.
 */
export class FleetClient {
  readonly #raw: GeneratedFleetClient;
  readonly #connection: ReturnType<typeof connection>;

  constructor(address: string, options: ClientOptions = {}) {
    this.#connection = connection(options);
    this.#raw = new GeneratedFleetClient(address, this.#connection.credentials, this.#connection.channelOptions);
  }

  /**
   * The rollout and its members as they change: on each connect the rollout's view, the members' views the cursors
   * do not cover, then `synced` (the picture is complete: yielded after every connect's burst), then one event per
   * change. It keeps a cursor per member (see {@link FleetWatch.cursors}); a dropped stream is reopened with backoff
   * from those cursors, so the server sends only what changed meanwhile. Never yields the same thing twice in a
   * row: a member view identical to the last yielded for that member, or a rollout view identical to the last
   * yielded, is skipped (a view with its member's revision unchanged is still yielded when something else in it
   * changed, e.g. the member became unavailable). Ends only when the signal aborts (it throws the abort as a
   * Canceled error) or on a non-transient error (NotFound: no such rollout). `break` closes the stream.
   *
   * ```ts
   * const watch = fleet.watchFleet({ rollout: "r1", signal });
   * for await (const event of watch) if (event.member) show(event.member);
   * ```
   */
  watchFleet(opts: FleetWatchOptions): FleetWatch {
    const cursors = new Map<string, number>(isMap(opts.cursors) ? opts.cursors : Object.entries(opts.cursors ?? {}));
    return Object.assign(this.#watchFleet(opts, cursors), { cursors: () => new Map(cursors) });
  }

  async *#watchFleet(opts: FleetWatchOptions, cursors: Map<string, number>): AsyncGenerator<FleetWatchResponse, void, undefined> {
    // The last view yielded, encoded: of the rollout, and of each member without its status (the revision stands
    // for the status).
    let lastRollout: Buffer | undefined;
    const lastViews = new Map<string, Buffer>();
    const request = (): FleetWatchRequest => ({
      namespace: opts.namespace ?? "",
      rollout: opts.rollout,
      cursors: [...cursors].map(([member, revision]) => ({ member, revision })),
      fullStatus: opts.fullStatus ?? false,
    });
    for await (const event of reconnecting(() => this.#raw.fleetWatch(request(), this.#connection.metadata()), opts)) {
      if (event.rollout) {
        const encoded = Buffer.from(RolloutView.encode(event.rollout).finish());
        if (lastRollout?.equals(encoded)) continue;
        lastRollout = encoded;
      } else if (event.member) {
        const view = event.member;
        const encoded = Buffer.from(MemberView.encode({ ...view, status: undefined }).finish());
        if (lastViews.get(view.member)?.equals(encoded)) continue;
        lastViews.set(view.member, encoded);
        // Lower than the cursor too: the member's state was wiped, and its revisions start again.
        cursors.set(view.member, view.revision);
      } else if (!event.synced) {
        // An event of a newer contract this client does not know.
        continue;
      }
      yield event;
    }
  }

  close(): void {
    this.#raw.close();
  }
}

function isMap(value: unknown): value is ReadonlyMap<string, number> {
  return value instanceof Map;
}
