import { hostname } from "node:os";

/**
 * Who this process is among replicas: the pod name where the deployment sets POD_NAME (the downward
 * API), else host name and pid, so two processes on one host differ.
 */
export function replicaIdentity(env: NodeJS.ProcessEnv = process.env): string {
  return env["POD_NAME"] || `${hostname()}_${process.pid}`;
}
