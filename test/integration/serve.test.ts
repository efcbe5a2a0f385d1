import assert from "node:assert/strict";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { service as healthService } from "grpc-health-check";
import type { SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { runCli } from "../harness/cli.js";
import { rawClient, startServer } from "../harness/server.js";

const require = createRequire(import.meta.url);
const REFLECTION_PROTO = join(dirname(require.resolve("@grpc/reflection")), "../proto/grpc/reflection/v1/reflection.proto");

type Unary = (req: object, cb: (err: grpc.ServiceError | null, res: { status: string }) => void) => void;

function healthCheck(address: string, serviceName: string): Promise<string> {
  const Client = grpc.makeGenericClientConstructor(healthService, "Health");
  const client = new Client(address, grpc.credentials.createInsecure()) as unknown as { check: Unary; close(): void };
  return new Promise((resolve, reject) =>
    client.check({ service: serviceName }, (err, res) => {
      client.close();
      return err ? reject(err) : resolve(res.status);
    }),
  );
}

async function listServices(address: string): Promise<string[]> {
  const definition = protoLoader.loadSync(REFLECTION_PROTO, { keepCase: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
  };
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  const stream = (
    client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, { list_services_response?: { service: { name: string }[] } }> }
  ).ServerReflectionInfo();
  stream.write({ list_services: "" });
  const [response] = (await once(stream, "data")) as [{ list_services_response?: { service: { name: string }[] } }];
  stream.end();
  client.close();
  return (response.list_services_response?.service ?? []).map((s) => s.name);
}

test("reflection lists the service, health answers SERVING, SIGTERM ends streams and exits 0", { timeout: 60_000 }, async () => {
  const server = await startServer();
  // A raw stream: the client's watch reconnects after the clean end this test checks for.
  const watcher = rawClient(server.address);
  let ended: Promise<string> = Promise.resolve("never opened");
  try {
    assert.ok((await listServices(server.address)).includes("syncworker.v1.SyncWorker"));
    assert.equal(await healthCheck(server.address, ""), "SERVING");
    assert.equal(await healthCheck(server.address, "syncworker.v1.SyncWorker"), "SERVING");
    const ready = await fetch(`http://${server.adminAddress}/readyz`);
    assert.equal(ready.status, 200);

    const stream = watcher.statusWatch({ sinceRevision: 0 });
    const received: SyncWorkerStatus[] = [];
    stream.on("data", (r: { status?: SyncWorkerStatus }) => r.status && received.push(r.status));
    ended = new Promise<string>((resolve) => {
      stream.on("end", () => resolve("end"));
      stream.on("error", (err) => resolve(`error ${String(err)}`));
    });
    await once(stream, "data");
    assert.equal(received[0]?.message, "Waiting for an update");
  } finally {
    const code = await server.stop();
    watcher.close();
    assert.equal(code, 0, `serve exits 0 on SIGTERM; log:\n${server.stderr()}`);
  }
  assert.equal(await ended, "end", "open watch streams end cleanly on shutdown");
});

test("a --health-rules file that cannot be read or compiled stops serve (exit 2), naming the file, the rule and the field", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-rules-"));
  const rules = join(dir, "rules.yaml");
  await writeFile(rules, 'rules:\n  - group: example.com\n    current: "status.phase =="\n');
  const bad = await runCli(["serve", "--health-rules", rules]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, new RegExp(`--health-rules: ${rules.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: rules\\[0\\]\\.current: .*: status\\.phase ==`));
  const missing = await runCli(["serve", "--health-rules", join(dir, "absent.yaml")]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--health-rules: cannot read .*absent\.yaml/);
});
