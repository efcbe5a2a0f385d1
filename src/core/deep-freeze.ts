/**
 * Freezes `value` and everything reachable from it, so a snapshot handed to several readers cannot be changed by
 * one of them. Errors are left alone: the worker still annotates them (an UpdateError's task) after they are shared.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value) && !(value instanceof Error)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
