import type { KubeObject } from "../../payload/manifest.js";
import { ApiError } from "../errors.js";
import type { KubeObjectClient } from "./object-client.js";

/**
 * Creates `obj`, first creating its namespace when the server says it does not exist: on a fresh
 * cluster the service's namespace may not exist before its first Lease or state object (the CVO's own
 * payload creates it later with server-side apply, which takes the existing object over).
 */
export async function createInNamespace(
  client: KubeObjectClient,
  obj: KubeObject & { metadata: { namespace: string } },
  signal: AbortSignal,
): Promise<KubeObject> {
  try {
    return await client.post(obj, signal);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err;
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: obj.metadata.namespace } }, signal);
    return await client.post(obj, signal);
  }
}
