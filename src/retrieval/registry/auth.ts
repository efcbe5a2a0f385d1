/**
 * Registry credentials and challenges. Credentials come from a Docker `config.json` (the format of an
 * OpenShift pull secret and of `podman login`'s auth file); challenges are the `WWW-Authenticate` headers of
 * the distribution token flow (https://distribution.github.io/distribution/spec/auth/token/).
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** A user name and password (or identity token) for one registry. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/**
 * Where credentials are read from when `--pull-secret` is not given, in the containers-auth order:
 * `$REGISTRY_AUTH_FILE`, then `$DOCKER_CONFIG/config.json`, then `~/.docker/config.json`. Empty when none is set
 * and the default file does not matter (a missing default file means anonymous pulls).
 */
export function defaultAuthFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env["REGISTRY_AUTH_FILE"]) return env["REGISTRY_AUTH_FILE"];
  return join(env["DOCKER_CONFIG"] || join(homedir(), ".docker"), "config.json");
}

/** The registry host a config key names: keys may be `host`, `host/path` or `https://host/v1/`. */
function keyHost(key: string): string {
  const host = key.replace(/^[a-z]+:\/\//, "").split("/")[0] ?? "";
  // Docker Hub's historic key.
  return host === "index.docker.io" ? "docker.io" : host;
}

/**
 * The credentials `file` holds for `registry`, undefined when it has none. A missing file is no credentials
 * when `optional` (the default locations); any other unreadable or malformed file is an Error naming it.
 * Credential helpers (`credHelpers`, `credsStore`) are not run: a service reads a pull secret, not a desktop keyring.
 */
export async function credentialsFor(file: string, registry: string, optional: boolean): Promise<Credentials | undefined> {
  if (file === "") return undefined;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (optional && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`reading registry credentials ${file}: ${(err as Error).message}`, { cause: err });
  }
  let auths: Record<string, { auth?: unknown; username?: unknown; password?: unknown; identitytoken?: unknown }>;
  try {
    const parsed = JSON.parse(text) as { auths?: unknown };
    if (typeof parsed !== "object" || parsed === null || typeof parsed.auths !== "object" || parsed.auths === null) throw new Error('no "auths" object');
    auths = parsed.auths as typeof auths;
  } catch (err) {
    throw new Error(`registry credentials ${file} are not a Docker config.json: ${(err as Error).message}`, { cause: err });
  }
  const entry = Object.entries(auths).find(([key]) => keyHost(key) === registry)?.[1];
  if (!entry) return undefined;
  if (typeof entry.auth === "string" && entry.auth !== "") {
    const decoded = Buffer.from(entry.auth, "base64").toString("utf8");
    const sep = decoded.indexOf(":");
    if (sep < 0) throw new Error(`registry credentials ${file}: the auth of ${registry} is not base64 of user:password`);
    return { username: decoded.slice(0, sep), password: decoded.slice(sep + 1) };
  }
  if (typeof entry.identitytoken === "string" && entry.identitytoken !== "") {
    // Docker's convention for identity tokens: the user name is a placeholder, the token the password.
    return { username: "<token>", password: entry.identitytoken };
  }
  if (typeof entry.username === "string" && typeof entry.password === "string") return { username: entry.username, password: entry.password };
  throw new Error(`registry credentials ${file}: the entry for ${registry} has neither auth nor username and password`);
}

/** One parsed `WWW-Authenticate` challenge. */
export interface Challenge {
  /** Lowercased scheme: `bearer` or `basic`. */
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/** Parses `Bearer realm="…",service="…",scope="…"` (quoted or token values, RFC 7235). */
export function parseChallenge(header: string): Challenge | undefined {
  const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (!match?.[1]) return undefined;
  const params: Record<string, string> = {};
  for (const p of (match[2] ?? "").matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[p[1]!.toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, "$1") : (p[3] ?? "");
  }
  return { scheme: match[1].toLowerCase(), params };
}

/** The `Authorization` value of basic credentials. */
export function basicAuthorization(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}`;
}
