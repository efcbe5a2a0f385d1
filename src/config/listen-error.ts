import { brandError } from "../core/index.js";
import { formatHostPort, type HostPort } from "./address.js";

/** What a bind failure's errno means for whoever runs `serve`. */
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: "the address is already in use",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "the address is not one of this host's",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name does not resolve now",
};

/**
 * A listener of `serve` that could not bind: names its flag, the address and why. `serve` stops on it (a
 * supervisor restarts it, a Deployment sees it crash) instead of running without the port.
 */
export class ListenError extends Error {
  constructor(
    readonly option: string,
    readonly address: string,
    /** The errno code (EADDRINUSE…), "" when the error carried none. */
    readonly code: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`--${option} ${address}: cannot listen: ${reason}`, options);
    this.name = "ListenError";
  }

  static {
    brandError(this, "ListenError");
  }

  /**
   * The failure of binding `at` for `--<option>`: a Node errno error, or grpc-js' bind error, which carries the
   * errno only in its text ("No address added … errors: [listen EADDRINUSE: …]").
   */
  static from(option: string, at: HostPort, err: unknown): ListenError {
    const text = err instanceof Error ? err.message : String(err);
    const errno = (err as NodeJS.ErrnoException | undefined)?.code;
    const code = typeof errno === "string" ? errno : (/\b(E[A-Z_]{3,})\b/.exec(text)?.[1] ?? "");
    const reason = REASONS[code] ? `${REASONS[code]} (${code})` : text;
    return new ListenError(option, formatHostPort(at), code, reason, { cause: err });
  }
}

/** Binds one listener of `--<option>`; its failure becomes a {@link ListenError} naming the flag, address and reason. */
export async function bindListener<T>(option: string, at: HostPort, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    throw ListenError.from(option, at, err);
  }
}
