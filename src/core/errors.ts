/**
 * Makes `instanceof errorClass` hold across duplicate copies of its module: the threaded loader, worker
 * threads and test bundles may load two, and a plain `instanceof` would then fail on the other copy's
 * errors. The brand is a `Symbol.for` key (shared by every copy) on the class's prototype, which
 * subclasses inherit, so a branded subclass is still an instance of its branded base.
 *
 * Call it once from the class body: `static { brandError(this, "ValueError"); }`.
 */
export function brandError(errorClass: abstract new (...args: never[]) => Error, name: string): void {
  const brand = Symbol.for(`syncworker.${name}`);
  Object.defineProperty(errorClass.prototype, brand, { value: true });
  Object.defineProperty(errorClass, Symbol.hasInstance, {
    value: (value: unknown): boolean => typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true,
  });
}

/** Anything thrown, as an Error: an Error passes through, anything else becomes one with its text. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
