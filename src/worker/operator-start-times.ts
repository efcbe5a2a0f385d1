/**
 * When the worker first waited on each ClusterOperator in the current attempt sequence (the CVO's
 * "CO update start times"). The applier records, a fresh apply sequence clears, and the status
 * derivation reads it for the 40-minute grace of degraded operators.
 */
export class OperatorStartTimes {
  readonly #started = new Map<string, Date>();

  constructor(private readonly now: () => Date) {}

  /** Remembers the first time only. */
  record(name: string): void {
    if (!this.#started.has(name)) this.#started.set(name, this.now());
  }

  get(name: string): Date | undefined {
    return this.#started.get(name);
  }

  clear(): void {
    this.#started.clear();
  }
}
