import { setTimeout as delay } from "node:timers/promises";
import type { Clock } from "./types.js";

/** The real clock; the composition root injects it, tests inject a manual one. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, { signal });
  },
};
