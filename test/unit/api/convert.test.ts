import assert from "node:assert/strict";
import { test } from "node:test";
import * as pb from "@syncworker/client/gen/syncworker/v1/syncworker";
import { fromProtoUpdate, MAX_STATUS_BYTES, toProtoStatus } from "../../../src/api/convert.js";
import { InvalidArgumentError } from "../../../src/api/errors.js";
import { fromProtoUpdateControls } from "../../../src/api/preview.js";
import { EMPTY_CLUSTER_VERSION, type ServiceStatus, type Snapshot } from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";

const request = (additionalEnabledCapabilities: string[]): pb.UpdateRequest =>
  pb.UpdateRequest.fromPartial({ desired: { image: "/payload" }, capabilities: { baselineCapabilitySet: "None", additionalEnabledCapabilities } });

test("an Update naming capabilities this release does not know is refused, naming them (a bounded list)", () => {
  assert.deepEqual(fromProtoUpdate(request(["Console", "ClusterAPI"])).capabilities.additionalEnabledCapabilities, ["Console", "ClusterAPI"]);
  assert.throws(
    () => fromProtoUpdate(request(["Console", "Invented", "Invented"])),
    (err: unknown) =>
      err instanceof InvalidArgumentError &&
      err.field === "capabilities.additional_enabled_capabilities" &&
      /1 unknown capabilities: "Invented"$/.test(err.message),
  );
  const invented = Array.from({ length: 200_000 }, (_, i) => `Cap${i}`);
  assert.throws(
    () => fromProtoUpdate(request(invented)),
    (err: unknown) =>
      err instanceof Error && err.message.includes("200000 unknown capabilities") && err.message.endsWith("… and 199950 more") && err.message.length < 2000,
  );
});

test("accept_risks: known names, each once; an unknown one is refused naming its index and the names", () => {
  const risks = (acceptRisks: string[]) => fromProtoUpdateControls(pb.UpdateRequest.fromPartial({ desired: { image: "/payload" }, acceptRisks }));
  assert.deepEqual(risks(["GiantHop", "BlastRadius", "GiantHop"]).acceptRisks, ["GiantHop", "BlastRadius"]);
  assert.equal(risks([]).acceptRisks, undefined);
  assert.throws(
    () => risks(["GiantHop", "force"]),
    (err: unknown) =>
      err instanceof InvalidArgumentError &&
      err.field === "accept_risks[1]" &&
      /"force" is not a risk name; the names are ClusterVersionUpgradeable, /.test(err.message),
  );
});

test("deadlines: Durations in milliseconds with what a passed one does; none set, none kept; bad ones refused naming the field", () => {
  const spec = (fields: Partial<pb.UpdateRequest>) => fromProtoUpdate(pb.UpdateRequest.fromPartial({ desired: { image: "/payload" }, ...fields }));
  assert.equal(spec({}).deadlines, undefined);
  assert.deepEqual(spec({ progressDeadline: { seconds: 600, nanos: 0 }, onDeadline: pb.OnDeadline.ON_DEADLINE_PAUSE }).deadlines, {
    progressMs: 600_000,
    onDeadline: "Pause",
  });
  assert.deepEqual(spec({ totalDeadline: { seconds: 1, nanos: 500_000_000 } }).deadlines, { totalMs: 1500, onDeadline: "Fail" });
  assert.throws(
    () => spec({ progressDeadline: { seconds: 0, nanos: 0 } }),
    (err: unknown) => err instanceof InvalidArgumentError && err.field === "progress_deadline" && /more than 0 and at most 365 days, got 0s/.test(err.message),
  );
  assert.throws(
    () => spec({ totalDeadline: { seconds: 400 * 86_400, nanos: 0 } }),
    (err: unknown) => err instanceof InvalidArgumentError && err.field === "total_deadline",
  );
  assert.throws(
    () => spec({ onDeadline: 7 as pb.OnDeadline }),
    (err: unknown) => err instanceof InvalidArgumentError && err.field === "on_deadline",
  );
});

const snapshot = (value: ServiceStatus): Snapshot<ServiceStatus> => ({ revision: 7, publishedAt: 1000, value });
const encodedSize = (status: pb.SyncWorkerStatus): number => pb.SyncWorkerStatus.encode(status).finish().length;

test("a status over MAX_STATUS_BYTES encoded is cut down to fit, its message saying so; a small one is untouched", () => {
  const small = snapshot({ worker: EMPTY_STATUS, clusterVersion: EMPTY_CLUSTER_VERSION });
  assert.equal(toProtoStatus(small).message, EMPTY_CLUSTER_VERSION.message);
  assert.equal(toProtoStatus(small), toProtoStatus(small), "made once per snapshot");
  // What the texts' bound does not cover: a payload of 50,000 components with long names.
  const components = Array.from({ length: 50_000 }, (_, i) => ({
    runLevel: i,
    component: `component-${i}-${"n".repeat(200)}`,
    state: "Pending" as const,
    done: 0,
    total: 1,
    currentObject: "",
    waitReason: "",
    attempts: 0,
  }));
  const big = toProtoStatus(snapshot({ worker: { ...EMPTY_STATUS, generation: 3, components }, clusterVersion: EMPTY_CLUSTER_VERSION }));
  assert.ok(encodedSize(big) <= MAX_STATUS_BYTES, `${encodedSize(big)} bytes`);
  assert.equal(big.revision, 7);
  assert.equal(big.generation, 3);
  assert.match(big.message, /status shortened from \d+ bytes to fit 1048576/);
  assert.ok(big.components.length > 0);
});
