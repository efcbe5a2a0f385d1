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

/**
 * The type of a value {@link deepFreeze} froze: every object, array, set and map in it read-only. Dates and errors stay
 * as they are (deepFreeze leaves errors alone, and a frozen Date still works).
 */
export type Frozen<T> = T extends Date | Error | ((...args: never[]) => unknown)
  ? T
  : T extends ReadonlySet<infer U>
    ? ReadonlySet<Frozen<U>>
    : T extends ReadonlyMap<infer K, infer V>
      ? ReadonlyMap<K, Frozen<V>>
      : T extends readonly (infer U)[]
        ? readonly Frozen<U>[]
        : T extends object
          ? { readonly [K in keyof T]: Frozen<T[K]> }
          : T;
