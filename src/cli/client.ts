import { credentials } from "@grpc/grpc-js";
import {
  SyncWorkerClient,
  SyncWorkerStatus,
  type GetStatusResponse,
  type NotifyResourceActivityResponse,
  type UpdateRequest,
  type UpdateResponse,
} from "../gen/syncworker/v1/syncworker.js";

export const DEFAULT_ADDRESS = "127.0.0.1:50051";

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

/** JSON as the proto3 JSON mapping prints it (camelCase fields, enums by name). */
export function statusJson(status: SyncWorkerStatus | undefined): unknown {
  return status ? SyncWorkerStatus.toJSON(status) : {};
}

/** True when `status` shows `version` (or any version) fully applied without failure. */
export function isComplete(status: SyncWorkerStatus, version: string): boolean {
  return (
    status.completed >= 1 &&
    !status.failure &&
    !status.loadPayloadStatus?.failure &&
    status.done === status.total &&
    (version === "" || status.actual?.version === version)
  );
}
