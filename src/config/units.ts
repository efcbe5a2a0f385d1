import { ValueError } from "./value-error.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

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
  return Number(match[1]) * (UNITS[match[2]] ?? 1);
}

/** The inverse of {@link parseByteSize} in the largest whole unit: a flag's default spelled from the number its owner declares. */
export function formatByteSize(bytes: number): string {
  return largestWholeUnit(bytes, BYTE_UNITS);
}

/** The inverse of {@link parseDuration} in the largest whole unit, as {@link formatByteSize}. */
export function formatDuration(ms: number): string {
  return largestWholeUnit(ms, UNITS);
}

function largestWholeUnit(value: number, units: Record<string, number>): string {
  const [unit = ""] = Object.entries(units)
    .filter(([, size]) => value % size === 0)
    .sort(([, a], [, b]) => b - a)
    .map(([name]) => name);
  return `${value / (units[unit] ?? 1)}${unit}`;
}

export function positiveNumber(option: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) throw new ValueError(option, `must be a positive number, got ${value}`);
  return value;
}

export function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ValueError(option, `must be a positive integer, got ${value}`);
  return value;
}
