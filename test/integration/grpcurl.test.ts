// grpcurl, built from its Go module, drives the service by server reflection alone (no proto files given): the
// services are listed, every message they reach is described, and each RPC and the health check can be called.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { goToolBinary } from "../harness/go-tool.js";
import { REPO_ROOT, startServer, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("grpcurl");

let grpcurl = "";
let server: ServerProcess;

before(async () => {
  grpcurl = await goToolBinary("build-grpcurl.sh");
  server = await startServer();
});

after(async () => {
  assert.equal(await server.stop(), 0, server.stderr());
});

async function call(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(grpcurl, ["-plaintext", "-max-time", "20", ...args], { maxBuffer: 1 << 22 });
  return stdout;
}

test("list shows SyncWorker, health and both reflection versions", { timeout: 600_000 }, async () => {
  const services = (await call(server.address, "list")).trim().split("\n");
  assert.deepEqual(services, [
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
    "syncworker.v1.SyncWorker",
  ]);
});

test("describe resolves every service and every message they reach, well-known types included", { timeout: 120_000 }, async () => {
  const services = (await call(server.address, "list")).trim().split("\n");
  // Types named in a description (`.pkg.Type`), followed until nothing new turns up.
  const pending = new Set<string>();
  const described = new Set<string>();
  const follow = (text: string): void => {
    for (const [, name] of text.matchAll(/(?<=\s)\.([a-zA-Z_][\w.]*[A-Z]\w*)\b/g)) if (name && !described.has(name)) pending.add(name);
  };
  for (const service of services) {
    const text = await call(server.address, "describe", service);
    assert.match(text, new RegExp(`^${service.replaceAll(".", "\\.")} is a service:`), text);
    follow(text);
  }
  while (pending.size > 0) {
    const [name] = pending;
    pending.delete(name!);
    described.add(name!);
    const text = await call(server.address, "describe", name!);
    assert.match(text, / is an? (message|enum):/, `${name}: ${text}`);
    follow(text);
  }
  for (const name of [
    "syncworker.v1.UpdateRequest",
    "syncworker.v1.SyncWorkerStatus",
    "syncworker.v1.LoadPayloadStatus",
    "google.protobuf.Timestamp",
    "grpc.health.v1.HealthCheckResponse",
    "grpc.reflection.v1.ServerReflectionResponse",
    "grpc.reflection.v1alpha.ServerReflectionResponse",
  ]) {
    assert.ok(described.has(name), `${name} not reached; described: ${[...described].join(", ")}`);
  }
});

test("a JSON Update, GetStatus, a few StatusWatch messages and the health check, by reflection", { timeout: 120_000 }, async () => {
  const image = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
  const update = JSON.parse(await call("-d", JSON.stringify({ generation: 1, desired: { image } }), server.address, "syncworker.v1.SyncWorker/Update")) as {
    status: { loadPayloadStatus: { step: string; update: { image: string } } };
  };
  assert.equal(update.status.loadPayloadStatus.step, "PayloadLoaded");
  assert.equal(update.status.loadPayloadStatus.update.image, image);

  const status = JSON.parse(await call(server.address, "syncworker.v1.SyncWorker/GetStatus")) as { status: { revision: string; actual: { version: string } } };
  assert.equal(status.status.actual.version, "1.0.0");

  // grpcurl prints each streamed message as one JSON object starting at column 0.
  const watch = spawn(grpcurl, ["-plaintext", "-d", JSON.stringify({ since_revision: 0 }), server.address, "syncworker.v1.SyncWorker/StatusWatch"]);
  let out = "";
  const revisions = await new Promise<number[]>((resolve, reject) => {
    watch.on("exit", (code) => reject(new Error(`grpcurl StatusWatch exited with ${code}: ${out}`)));
    watch.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const messages = out.split(/\n(?=\{\n)/).filter((m) => m.trim().endsWith("}"));
      if (messages.length >= 3) resolve(messages.slice(0, 3).map((m) => Number((JSON.parse(m) as { status: { revision: string } }).status.revision)));
    });
  });
  watch.removeAllListeners("exit");
  watch.kill();
  assert.ok(
    revisions[0]! >= Number(status.status.revision) && revisions[0]! < revisions[1]! && revisions[1]! < revisions[2]!,
    `revisions ${revisions.join(", ")}`,
  );

  assert.deepEqual(JSON.parse(await call(server.address, "grpc.health.v1.Health/Check")), { status: "SERVING" });
  assert.deepEqual(JSON.parse(await call("-d", '{"service":"syncworker.v1.SyncWorker"}', server.address, "grpc.health.v1.Health/Check")), {
    status: "SERVING",
  });
});
