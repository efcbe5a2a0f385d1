import { onAbort, type Clock } from "../core/index.js";

/**
 * What wakes the worker's loop: a notification or the timer of its next pass. One notification is pending at most;
 * more coalesce (the CVO's notify channel of capacity 1).
 */
export class Wakeup {
  #pending: string | undefined;
  /** Ends the loop's current wait; undefined while it is not waiting. */
  #wake: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly log: { debug(msg: string): void },
  ) {}

  /** Wakes the loop early; returns false when a notification was already pending. */
  notify(message: string): boolean {
    if (this.#pending !== undefined) {
      this.log.debug(`The sync worker already has a pending notification, so do not notify about: ${message}`);
      return false;
    }
    this.#pending = message;
    this.#wake?.();
    return true;
  }

  /** Waits for the timer (at `nextAt`; none when undefined), a notification, or the end; a pending notification wins at once. */
  async wait(nextAt: number | undefined, signal: AbortSignal): Promise<"timer" | "notify" | "stopped"> {
    if (signal.aborted) return "stopped";
    const takeNotify = (): "notify" => {
      this.log.debug(this.#pending ?? "");
      this.#pending = undefined;
      return "notify";
    };
    if (this.#pending !== undefined) return takeNotify();
    const done = new AbortController();
    const unlisten = onAbort(signal, () => done.abort());
    try {
      const waits: Promise<"timer" | "notify" | "stopped">[] = [
        new Promise((resolve) => (this.#wake = () => resolve("notify"))),
        new Promise((resolve) => done.signal.addEventListener("abort", () => resolve("stopped"), { once: true })),
      ];
      if (nextAt !== undefined) {
        const ms = Math.max(0, nextAt - this.clock.now().getTime());
        waits.push(
          this.clock.sleep(ms, done.signal).then(
            () => "timer" as const,
            () => "stopped" as const,
          ),
        );
      }
      const woke = await Promise.race(waits);
      if (woke === "stopped" && !signal.aborted) return "stopped";
      return woke === "notify" ? takeNotify() : woke;
    } finally {
      this.#wake = undefined;
      unlisten();
      done.abort();
    }
  }
}
