/**
 * When the worker first waited on each ClusterOperator in the current attempt sequence (the CVO's
 * "CO update start times"), for the 40-minute grace of degraded operators. Owned by the SyncService:
 * the applier reports waits, the worker says when a sequence restarts, the status derivation reads.
 */
export class OperatorWaits {
  readonly #started = new Map<string, Date>();

  constructor(private readonly now: () => Date) {}

  /** Remembers the first time only. */
  record(name: string): void {
    if (!this.#started.has(name)) this.#started.set(name, this.now());
  }

  startedAt(name: string): Date | undefined {
    return this.#started.get(name);
  }

  clear(): void {
    this.#started.clear();
  }
}
