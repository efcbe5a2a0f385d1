import { DURATION_UNITS, formatDuration, largestWholeUnit } from "../core/index.js";
import { ValueError } from "./value-error.js";

export { formatDuration };

const BYTE_UNITS: Record<string, number> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** Parses positive byte sizes such as "65536", "512Ki", "16Mi", "1Gi". */
export function parseByteSize(option: string, text: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(text.trim());
  if (!match?.[1]) throw new ValueError(option, `"${text}" is not a size like 65536, 512Ki, 16Mi or 1Gi`);
  return positiveInteger(option, Number(match[1]) * (BYTE_UNITS[match[2] ?? ""] ?? 1));
}

/** Parses durations such as "250ms", "5s", "2m", "1.5h". */
export function parseDuration(option: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) throw new ValueError(option, `"${text}" is not a duration like 500ms, 5s or 2m`);
  return Number(match[1]) * (DURATION_UNITS[match[2]] ?? 1);
}

/** The inverse of {@link parseByteSize} in the largest whole unit: a flag's default spelled from the number its owner declares. */
export function formatByteSize(bytes: number): string {
  return largestWholeUnit(bytes, BYTE_UNITS);
}

export function positiveNumber(option: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) throw new ValueError(option, `must be a positive number, got ${value}`);
  return value;
}

export function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ValueError(option, `must be a positive integer, got ${value}`);
  return value;
}
