// Input limits of a real `syncworker serve`: payload roots, payloads holding what must not be read, malformed
// release metadata, integers beyond 2^53, long strings, oversized requests, watches per client, debug routes.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import * as grpc from "@grpc/grpc-js";
import { Code, SyncWorkerError, type UpdateInput } from "@syncworker/client";
import type { StatusWatchResponse, SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import { violatedField } from "../harness/grpc-errors.js";
import { rawClient, REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const EXAMPLES = join(REPO_ROOT, "examples/payloads");
const DEMO = join(EXAMPLES, "demo-1.0.0");
const SECRET = "secret-outside-the-root";

let server: ServerProcess;
let root: string;
let outside: string;

before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "syncworker-root-")));
  outside = await realpath(await mkdtemp(join(tmpdir(), "syncworker-outside-")));
  await writeFile(join(outside, "0000_20_secret.yaml"), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${SECRET}\n`);
  await writePayload(join(outside, "payload"), "9.0.0");
  server = await startServer(["--payload-root", EXAMPLES, "--payload-root", root, "--max-watches-per-client", "3"]);
});

after(async () => {
  assert.equal(await server.stop(), 0, "SIGTERM still exits 0");
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** A minimal payload of `version`: metadata, image references, no manifests. */
async function writePayload(dir: string, version: string, metadata = JSON.stringify({ kind: "cincinnati-metadata-v0", version })): Promise<string> {
  await mkdir(join(dir, "manifests"), { recursive: true });
  await mkdir(join(dir, "release-manifests"), { recursive: true });
  await writeFile(join(dir, "release-manifests/release-metadata"), metadata);
  await writeFile(join(dir, "release-manifests/image-references"), `kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: ${version}\n`);
  return dir;
}

function request(image: string, generation = 1): UpdateInput {
  return { generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state: 0 };
}

/** The error a call (through the client or raw) was refused with, as the client's typed error. */
async function refusal(call: Promise<unknown>): Promise<SyncWorkerError> {
  try {
    await call;
  } catch (err) {
    return SyncWorkerError.from(err);
  }
  assert.fail("expected the call to be refused");
}

/** A unary call with raw request bytes, as a client of another language (or an attacker) could send them. */
function rawCall(method: string, bytes: Uint8Array): Promise<Buffer> {
  const client = new grpc.Client(server.address, grpc.credentials.createInsecure());
  return new Promise<Buffer>((resolve, reject) =>
    client.makeUnaryRequest(
      `/syncworker.v1.SyncWorker/${method}`,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from(bytes),
      (err, value) => {
        client.close();
        return err ? reject(err) : resolve(value!);
      },
    ),
  ).finally(() => client.close());
}

test("an image outside every payload root, through a link inside one, or by `..`, is refused naming desired.image", { timeout: 60_000 }, async () => {
  await symlink(outside, join(root, "escape"));
  await symlink("/etc", join(root, "etc"));
  for (const image of [
    join(outside, "payload"),
    `file://${outside}/payload`,
    join(root, "escape/payload"),
    join(root, "etc"),
    `${root}/../${outside.slice(outside.lastIndexOf("/") + 1)}/payload`,
    `${EXAMPLES}/../../../../etc`,
  ]) {
    const err = await refusal(server.client.update(request(image)));
    assert.equal(err.code, Code.InvalidArgument, `${image}: ${err.rawMessage}`);
    assert.equal(violatedField(err), "desired.image");
    assert.match(err.rawMessage, /is not under a payload root/);
    assert.ok(!err.rawMessage.includes(SECRET) && !err.rawMessage.includes("hostname"), err.rawMessage);
  }
  const status = await server.client.getStatus();
  assert.equal(status.loadPayloadStatus?.update?.image ?? "", "", "nothing was loaded");
});

test(
  "a FIFO, a socket and a link out of the payload: Update returns promptly naming the file; a good payload then completes",
  { timeout: 120_000 },
  async () => {
    const fifo = await writePayload(join(root, "fifo"), "9.0.1");
    execFileSync("mkfifo", [join(fifo, "release-manifests/0000_20_x.yaml")]);
    const socket = await writePayload(join(root, "socket"), "9.0.2");
    const listener = createServer().listen(join(socket, "release-manifests/0000_20_sock.yaml"));
    const linked = await writePayload(join(root, "linked"), "9.0.3");
    await symlink(join(outside, "0000_20_secret.yaml"), join(linked, "release-manifests/0000_20_link.yaml"));
    const manifestsOut = await writePayload(join(root, "manifests-out"), "9.0.4");
    await rm(join(manifestsOut, "manifests"), { recursive: true });
    await symlink(outside, join(manifestsOut, "manifests"));
    try {
      let generation = 1;
      for (const [dir, file, what] of [
        [fifo, "release-manifests/0000_20_x.yaml", "a named pipe"],
        [socket, "release-manifests/0000_20_sock.yaml", "a socket"],
        [linked, "release-manifests/0000_20_link.yaml", "a symbolic link leading out of the payload"],
        [manifestsOut, "manifests", "a symbolic link leading out of the payload"],
      ] as const) {
        const started = Date.now();
        const load = (await server.client.update(request(dir, generation++))).loadPayloadStatus;
        assert.ok(Date.now() - started < 5_000, `${file}: answered after ${Date.now() - started} ms`);
        assert.equal(load?.step, "LoadPayload");
        assert.ok(load?.failure?.message.includes(`${file} is ${what}`), load?.failure?.message);
        const message = load.failure?.message ?? "";
        assert.ok(!message.includes(SECRET) && !message.includes(outside), message);
      }
      const good = await server.client.update(request(DEMO, generation));
      assert.equal(good.loadPayloadStatus?.step, "PayloadLoaded");
      await waitForStatus(server.client, (s) => s.actual?.version === "1.0.0" && s.completed >= 1 && s.done === s.total && !s.failure, 60_000);
    } finally {
      listener.close();
    }
  },
);

test("malformed release-metadata fails the load naming the file and what is wrong", { timeout: 60_000 }, async () => {
  const cases = [
    ["truncated", '{"kind": "cincinnati-metadata-v0", "vers', /release-metadata:1: unmarshal Cincinnati metadata: unexpected end of JSON input/],
    [
      "a version of the wrong type",
      '{"kind": "cincinnati-metadata-v0", "version": 4}',
      /release-metadata: .*cannot unmarshal number into Go struct field metadata\.version of type string/,
    ],
    ["no version", '{"kind": "cincinnati-metadata-v0"}', /release-metadata: missing required Cincinnati metadata version/],
    ["the wrong kind", '{"kind": "something-else", "version": "9.1.0"}', /release-metadata: unrecognized Cincinnati metadata kind "something-else"/],
    ["not an object", "[1, 2]", /release-metadata: unmarshal Cincinnati metadata: json: cannot unmarshal array/],
  ] as const;
  for (const [i, [name, metadata, pattern]] of cases.entries()) {
    const dir = await writePayload(join(root, `metadata-${i}`), "9.1.0", metadata);
    const load = (await server.client.update(request(dir, 100 + i))).loadPayloadStatus;
    assert.equal(load?.step, "LoadPayload", name);
    assert.match(load?.failure?.message ?? "", new RegExp(`release-manifests/${pattern.source}`), name);
  }
});

test("integers beyond 2^53 and strings beyond their limits are refused naming the field; oversized requests too", { timeout: 60_000 }, async () => {
  const generation = new BinaryWriter()
    .uint32(8)
    .int64(2n ** 53n)
    .uint32(18)
    .fork()
    .uint32(18)
    .string(DEMO)
    .join()
    .finish();
  let err = await refusal(rawCall("Update", generation));
  assert.deepEqual([err.code, violatedField(err)], [Code.InvalidArgument, "generation"]);
  assert.match(err.rawMessage, /generation is out of range/);

  const since = new BinaryWriter()
    .uint32(8)
    .uint64(2n ** 64n - 1n)
    .finish();
  const client = new grpc.Client(server.address, grpc.credentials.createInsecure());
  err = await refusal(
    new Promise((_resolve, reject) => {
      const watch = client.makeServerStreamRequest(
        "/syncworker.v1.SyncWorker/StatusWatch",
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(since),
      );
      watch.on("data", () => undefined);
      watch.on("error", reject);
    }),
  );
  client.close();
  assert.deepEqual([err.code, violatedField(err)], [Code.InvalidArgument, "since_revision"]);

  const tooLong: [UpdateInput, string][] = [
    [request(join(root, "x".repeat(5000))), "desired.image"],
    [{ ...request(DEMO), desired: { version: "1".repeat(300), image: DEMO, force: false } }, "desired.version"],
    [{ ...request(DEMO), overrides: [{ kind: "ConfigMap", group: "", namespace: "ns", name: "n".repeat(254), unmanaged: true }] }, "overrides[0].name"],
  ];
  for (const [req, field] of tooLong) {
    err = await refusal(server.client.update(req));
    assert.deepEqual([err.code, violatedField(err)], [Code.InvalidArgument, field]);
    assert.match(err.rawMessage, /bytes long, more than the \d+ accepted/);
  }
  err = await refusal(server.client.notify("m".repeat(2000)));
  assert.deepEqual([err.code, violatedField(err)], [Code.InvalidArgument, "message"]);

  err = await refusal(server.client.update(request(`/${"x".repeat(5 * 1024 * 1024)}`)));
  assert.equal(err.code, Code.ResourceExhausted);
});

test("a client holds at most --max-watches-per-client streams; a closed one frees its slot", { timeout: 60_000 }, async () => {
  // Raw streams: the client's watch would retry a RESOURCE_EXHAUSTED refusal instead of surfacing it.
  const client = rawClient(server.address);
  const open = (): grpc.ClientReadableStream<StatusWatchResponse> => client.statusWatch({ sinceRevision: 0 });
  const first = (stream: grpc.ClientReadableStream<StatusWatchResponse>): Promise<SyncWorkerStatus | grpc.ServiceError> =>
    new Promise((resolve) => {
      stream.once("data", (r: StatusWatchResponse) => resolve(r.status!));
      stream.once("error", (e: grpc.ServiceError) => resolve(e));
    });
  const streams = [open(), open(), open()];
  try {
    for (const s of streams) assert.ok("revision" in (await first(s)));
    const over = open();
    const err = (await first(over)) as grpc.ServiceError;
    assert.equal(err.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(err.details, /already has 3 open StatusWatch streams, the most one client may hold \(--max-watches-per-client\)/);
    streams.shift()!.cancel();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = open();
    streams.push(again);
    assert.ok("revision" in (await first(again)));
  } finally {
    for (const s of streams) s.cancel();
    client.close();
  }
});

test("the admin endpoint's debug routes are off without --debug-endpoints", async () => {
  assert.equal((await fetch(`http://${server.adminAddress}/debug/embedded/objects`)).status, 404);
  assert.equal((await fetch(`http://${server.adminAddress}/healthz`)).status, 200);
});
