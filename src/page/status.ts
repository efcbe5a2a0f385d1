/**
 * The API's `SyncWorkerStatus` in its JSON form, as the page's stream carries it (proto3 JSON: camelCase names,
 * enums as their names, timestamps as RFC 3339, durations as "1.5s"; a field at its default is left out, hence the
 * optional fields). Only what the page shows; the whole contract is proto/syncworker/v1/syncworker.proto.
 */
export interface FailureJson {
  readonly reason?: string;
  readonly message?: string;
}

export interface ComponentJson {
  readonly runLevel?: number;
  readonly component?: string;
  readonly state?: string;
  readonly done?: number;
  readonly total?: number;
  readonly currentObject?: string;
  readonly waitReason?: string;
  readonly waitingSince?: string;
  readonly attempts?: number;
  readonly slow?: boolean;
}

export interface HistoryJson {
  readonly state?: string;
  readonly version?: string;
  readonly image?: string;
  readonly verified?: boolean;
  readonly startedTime?: string;
  readonly completionTime?: string;
  readonly acceptedRisks?: string;
  readonly rollback?: boolean;
}

export interface StatusJson {
  readonly revision?: number;
  readonly message?: string;
  readonly done?: number;
  readonly total?: number;
  readonly reconciling?: boolean;
  readonly failure?: FailureJson;
  readonly actual?: { readonly version?: string; readonly image?: string };
  readonly loadPayloadStatus?: {
    readonly step?: string;
    readonly message?: string;
    readonly failure?: FailureJson;
    readonly update?: { readonly version?: string; readonly image?: string };
    readonly verified?: boolean;
    readonly acceptedRisks?: string;
  };
  readonly history?: readonly HistoryJson[];
  readonly components?: readonly ComponentJson[];
  readonly timing?: { readonly startedAt?: string; readonly elapsed?: string; readonly estimatedRemaining?: string; readonly estimateBasis?: string };
  readonly pause?: {
    readonly paused?: boolean;
    readonly pausedBy?: string;
    readonly reason?: string;
    readonly pausedAt?: string;
    readonly updatePending?: boolean;
  };
  readonly maintenance?: { readonly reason?: string; readonly until?: string };
}

/** Seconds of a proto3 JSON duration ("12.500s"). */
export function seconds(duration: string | undefined): number | undefined {
  if (!duration) return undefined;
  const value = Number.parseFloat(duration);
  return Number.isFinite(value) ? value : undefined;
}

/** "1h02m", "3m05s", "42s": a span of time as the CLI writes it. */
export function span(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(rest).padStart(2, "0")}s`;
  return `${rest}s`;
}

/** `COMPONENT_STATE_WAITING` → `Waiting`. */
export function stateName(state: string | undefined): string {
  const name = (state ?? "COMPONENT_STATE_PENDING").replace(/^COMPONENT_STATE_/, "").toLowerCase();
  return name === "unspecified" ? "Pending" : name.charAt(0).toUpperCase() + name.slice(1);
}
