/**
 * The registry flags of the client-side commands that talk to a registry themselves (`sign-payload --push`):
 * the same meaning as `serve`'s, turned into a {@link RegistryClient}'s options.
 */
import { readFile } from "node:fs/promises";
import { ValueError } from "../config/index.js";
import { defaultAuthFile, type RegistryClientOptions } from "../payload/registry/index.js";

export interface RegistryFlags {
  readonly pullSecret?: string;
  readonly registryCa?: string;
  readonly insecureRegistry?: readonly string[];
}

/** Options for a RegistryClient; a named CA that cannot be read is a ValueError naming it. */
export async function registryClientOptions(flags: RegistryFlags, env: NodeJS.ProcessEnv = process.env): Promise<RegistryClientOptions> {
  let caPem: string | undefined;
  if (flags.registryCa) {
    try {
      caPem = await readFile(flags.registryCa, "utf8");
    } catch (err) {
      throw new ValueError("registry-ca", `${flags.registryCa}: ${(err as Error).message}`);
    }
  }
  return {
    authFile: flags.pullSecret ?? defaultAuthFile(env),
    authFileOptional: flags.pullSecret === undefined && !env["REGISTRY_AUTH_FILE"],
    ...(caPem !== undefined && { caPem }),
    insecureHosts: flags.insecureRegistry ?? [],
  };
}
