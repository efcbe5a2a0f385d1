import { parseHostPort, type HostPort } from "./address.js";
import { applyDefaults, FLEET_FLAGS, type FleetFlags } from "./flags.js";
import { compileSecurity, type SecurityOptions } from "./options.js";
import { parseDuration, positiveNumber } from "./units.js";

/** `syncworker fleet`'s flags, checked: every value is parsed here, so a bad one stops start-up naming its flag. */
export interface CompiledFleetOptions {
  readonly kubeconfig: string;
  readonly namespace: string;
  readonly listen: HostPort;
  readonly adminListen?: HostPort;
  readonly leaderElect: boolean;
  readonly leaseName: string;
  readonly workers: number;
  readonly resyncMs: number;
  readonly memberTimeoutMs: number;
  readonly security: SecurityOptions;
}

export function compileFleetOptions(flags: FleetFlags, env: NodeJS.ProcessEnv = process.env): CompiledFleetOptions {
  const o = applyDefaults(FLEET_FLAGS, flags);
  const listen = parseHostPort("listen", o.listen);
  return {
    kubeconfig: o.kubeconfig,
    namespace: o.namespace ?? (env["POD_NAMESPACE"] || "default"),
    listen,
    ...(o.adminListen ? { adminListen: parseHostPort("admin-listen", o.adminListen) } : {}),
    leaderElect: o.leaderElect,
    leaseName: o.leaseName,
    workers: positiveNumber("workers", o.workers),
    resyncMs: parseDuration("resync", o.resync),
    memberTimeoutMs: parseDuration("member-timeout", o.memberTimeout),
    security: compileSecurity(o, listen, o.kubeconfig, "watch every rollout and member of the fleet"),
  };
}
