/**
 * Bearer tokens: who a token belongs to and whether that caller may make one call. Two authorities: a static
 * token file with a role per token (the embedded default) and, on a real cluster, the API server's TokenReview and
 * SubjectAccessReview, as kube-rbac-proxy does; the latter behind a short cache.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { ValueError } from "../config/index.js";

/** reader: GetStatus and StatusWatch; writer: also Update and NotifyResourceActivity. */
export type Role = "reader" | "writer";

/** What one RPC requires: a role for static tokens, an RBAC verb for a SubjectAccessReview. */
export interface RpcAccess {
  /** The proto method name, e.g. `Update`. */
  readonly rpc: string;
  readonly role: Role;
  readonly verb: string;
}

/** The outcome of checking a token for one RPC. */
export type TokenDecision =
  | { readonly outcome: "allowed"; readonly user: string }
  | { readonly outcome: "denied"; readonly user: string; readonly reason: string }
  | { readonly outcome: "unauthenticated"; readonly reason: string };

/** Checks a bearer token for one RPC; rejects only when it could not decide (the authority was unreachable). */
export interface TokenAuthority {
  review(token: string, access: RpcAccess, signal: AbortSignal): Promise<TokenDecision>;
}

/** Tokens from `--token-file`: `token,user,role` per line; `#` starts a comment line. */
export class StaticTokens implements TokenAuthority {
  /** By the token's SHA-256, so the map's lookup time says nothing about a guessed token's characters. */
  readonly #byDigest: ReadonlyMap<string, { readonly user: string; readonly role: Role }>;

  private constructor(entries: Map<string, { user: string; role: Role }>) {
    this.#byDigest = entries;
  }

  /** Reads and checks the file; a bad line is a ValueError naming the file and line. */
  static load(file: string): StaticTokens {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new ValueError("token-file", `cannot read ${file}: ${(err as Error).message}`);
    }
    const entries = new Map<string, { user: string; role: Role }>();
    text.split("\n").forEach((raw, index) => {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) return;
      const bad = (what: string): never => {
        throw new ValueError("token-file", `${file}:${index + 1}: ${what}; each line is token,user,role with role reader or writer`);
      };
      const fields = line.split(",").map((f) => f.trim());
      if (fields.length !== 3) bad(`${fields.length} fields instead of 3`);
      const [token = "", user = "", role = ""] = fields;
      if (token.length < 8) bad("the token is shorter than 8 characters");
      if (user === "") bad("the user is empty");
      if (role !== "reader" && role !== "writer") bad(`"${role}" is not a role`);
      if (entries.has(digest(token))) bad("the token is already listed on an earlier line");
      entries.set(digest(token), { user, role: role as Role });
    });
    if (entries.size === 0) throw new ValueError("token-file", `${file} lists no tokens`);
    return new StaticTokens(entries);
  }

  async review(token: string, access: RpcAccess): Promise<TokenDecision> {
    const entry = this.#byDigest.get(digest(token));
    if (!entry) return { outcome: "unauthenticated", reason: "the bearer token is not in the server's --token-file" };
    // Writer implies reader.
    if (access.role === "writer" && entry.role !== "writer") {
      return { outcome: "denied", user: entry.user, reason: `it needs the writer role, and "${entry.user}" has ${entry.role}` };
    }
    return { outcome: "allowed", user: entry.user };
  }
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The user a TokenReview authenticated, passed on to the SubjectAccessReview as the API server returned it. */
export interface ReviewedUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The API server's reviews, implemented in src/cluster/kube. */
export interface AccessReviews {
  /** The namespace access is checked in (the service's own). */
  readonly namespace: string;
  /** TokenReview: the token's user, or why it is not authenticated. */
  reviewToken(token: string, signal: AbortSignal): Promise<{ readonly user: ReviewedUser } | { readonly error: string }>;
  /** SubjectAccessReview of `verb` on `resource` in `group`, in {@link namespace}. */
  reviewAccess(
    user: ReviewedUser,
    attributes: { group: string; resource: string; verb: string },
    signal: AbortSignal,
  ): Promise<{ readonly allowed: boolean; readonly reason: string }>;
}

/** The API group and resource RBAC rules name to grant our verbs (get, watch, update). */
export const RBAC_GROUP = "syncworker.openshift.io";
export const RBAC_RESOURCE = "syncworkers";

/** Tokens the cluster knows (ServiceAccounts, OIDC users, …), authorized by its RBAC with one verb per RPC. */
/** The resource RBAC rules name to grant a server's verbs: `syncworkers` for serve, `releaserollouts` for the fleet's. */
export interface ReviewedResource {
  readonly group: string;
  readonly resource: string;
}

export class KubeTokenAuthority implements TokenAuthority {
  constructor(
    private readonly reviews: AccessReviews,
    private readonly checked: ReviewedResource = { group: RBAC_GROUP, resource: RBAC_RESOURCE },
  ) {}

  async review(token: string, access: RpcAccess, signal: AbortSignal): Promise<TokenDecision> {
    const authenticated = await this.reviews.reviewToken(token, signal);
    if ("error" in authenticated) return { outcome: "unauthenticated", reason: `the cluster did not accept the bearer token: ${authenticated.error}` };
    const { user } = authenticated;
    const { group, resource } = this.checked;
    const { allowed, reason } = await this.reviews.reviewAccess(user, { group, resource, verb: access.verb }, signal);
    if (allowed) return { outcome: "allowed", user: user.username };
    return {
      outcome: "denied",
      user: user.username,
      reason: `it needs verb "${access.verb}" on ${resource}.${group} in namespace "${this.reviews.namespace}"${reason ? ` (${reason})` : ""}`,
    };
  }
}

export interface TokenCacheOptions {
  /** How long an allowed decision is reused. */
  readonly allowedTtlMs: number;
  /** How long a refusal is reused; shorter, so a new RBAC grant takes effect soon. */
  readonly refusedTtlMs: number;
  readonly maxEntries: number;
  /** Deadline of one review; it is shared by every caller waiting on it, so no single caller's signal ends it. */
  readonly reviewTimeoutMs: number;
}

/** kube-apiserver's webhook authorizer caches allowed decisions for 5m and denials for 30s; ours are shorter. */
export const DEFAULT_TOKEN_CACHE: TokenCacheOptions = { allowedTtlMs: 30_000, refusedTtlMs: 10_000, maxEntries: 1024, reviewTimeoutMs: 10_000 };

interface CacheEntry {
  readonly decision: Promise<TokenDecision>;
  /** undefined while the review is in flight. */
  expiresAt: number | undefined;
}

/**
 * Reuses decisions for a short while and joins concurrent reviews of the same token and verb, so a thousand
 * watchers opening at once cost one TokenReview. Failures to decide are not cached. Keys hold the token's digest.
 */
export class CachedTokenAuthority implements TokenAuthority {
  readonly #entries = new Map<string, CacheEntry>();

  constructor(
    private readonly inner: TokenAuthority,
    private readonly now: () => number,
    private readonly options: TokenCacheOptions = DEFAULT_TOKEN_CACHE,
  ) {}

  review(token: string, access: RpcAccess): Promise<TokenDecision> {
    const key = `${digest(token)}/${access.verb}`;
    const cached = this.#entries.get(key);
    if (cached && (cached.expiresAt === undefined || cached.expiresAt > this.now())) return cached.decision;
    this.#entries.delete(key);
    const decision = this.inner.review(token, access, AbortSignal.timeout(this.options.reviewTimeoutMs));
    const entry: CacheEntry = { decision, expiresAt: undefined };
    this.#entries.set(key, entry);
    // Oldest first: a Map iterates in insertion order.
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.options.maxEntries) break;
      this.#entries.delete(oldest);
    }
    decision.then(
      (d) => (entry.expiresAt = this.now() + (d.outcome === "allowed" ? this.options.allowedTtlMs : this.options.refusedTtlMs)),
      () => this.#entries.get(key) === entry && this.#entries.delete(key),
    );
    return decision;
  }

  /** Entries held, in flight ones included. */
  get size(): number {
    return this.#entries.size;
  }
}
