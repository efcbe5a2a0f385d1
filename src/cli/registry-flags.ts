/**
 * The registry flags (`--pull-secret`, `--registry-ca`, `--insecure-registry`) of every command that reaches a
 * registry: `serve`, and the client commands that pull or push themselves. Declared once here, read once by
 * config's {@link compileRegistryAccess}.
 */
import type { Command } from "commander";
import type { ServeOptions } from "../config/index.js";

export type RegistryFlags = Pick<ServeOptions, "pullSecret" | "registryCa" | "insecureRegistry">;

/** Adds the registry flags to `command`; `scope` words the CA flag ("registries" for serve, "the registry" else). */
export function withRegistryFlags(command: Command, scope = "the registry"): Command {
  return command
    .option("--pull-secret <file>", "registry credentials, a Docker config.json (default: $REGISTRY_AUTH_FILE, $DOCKER_CONFIG/config.json, ~/.docker/config.json)")
    .option("--registry-ca <file>", `CA certificates (PEM) trusted for ${scope} besides the system's`)
    .option("--insecure-registry <host[:port]>", "a loopback registry spoken to over plain HTTP, for tests (repeatable)", (host: string, hosts: string[]) => [...hosts, host], []);
}
