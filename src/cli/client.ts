// Transitional: the tests and benchmarks that still drive the raw generated client use these promise wrappers.
// The CLI itself uses @syncworker/client (./connect.ts); this module goes once they have moved to it too.
import { credentials } from "@grpc/grpc-js";
import {
  SyncWorkerClient,
  type GetStatusResponse,
  type NotifyResourceActivityResponse,
  type UpdateRequest,
  type UpdateResponse,
} from "../gen/syncworker/v1/syncworker.js";

export { isComplete } from "@syncworker/client";

/** A plaintext client of the generated code for `address`. */
export function connect(address: string): SyncWorkerClient {
  return new SyncWorkerClient(address, credentials.createInsecure());
}

type Callback<Res> = (err: Error | null, res: Res) => void;

function promised<Res>(start: (callback: Callback<Res>) => unknown): Promise<Res> {
  return new Promise((resolve, reject) => start((err, res) => (err ? reject(err) : resolve(res))));
}

/** The unary methods of the generated client as promises. */
export const rpc = {
  update: (c: SyncWorkerClient, req: UpdateRequest) => promised<UpdateResponse>((cb) => c.update(req, cb)),
  getStatus: (c: SyncWorkerClient) => promised<GetStatusResponse>((cb) => c.getStatus({}, cb)),
  notify: (c: SyncWorkerClient, message: string) =>
    promised<NotifyResourceActivityResponse>((cb) => c.notifyResourceActivity({ message }, cb)),
};
