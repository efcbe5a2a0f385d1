// Hostile directory payloads against a real `syncworker serve` (issue 28): alias amplification, deep nesting, bad
// encodings and control characters are refused naming the file, promptly, without the memory they would take; the
// service stays alive and answering, and the accepted release stays in effect.
import assert from "node:assert/strict";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Code, SyncWorkerError, type SyncWorkerStatus } from "@syncworker/client";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const DEMO = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const MiB = 1024 * 1024;

let server: ServerProcess;
let work: string;
let generation = 1;

before(async () => {
  work = await mkdtemp(join(tmpdir(), "syncworker-hostile-"));
  // Limits below their defaults, to see that serve's flags reach the loader thread.
  server = await startServer(["--payload-max-alias-bytes", "8Mi", "--payload-max-depth", "256"]);
  await server.client.update({ generation: generation++, desired: { image: DEMO } });
  await waitForStatus(server.client, (s) => s.actual?.version === "1.0.0" && s.completed >= 1 && !s.failure, 60_000);
});

after(async () => {
  assert.equal(await server.stop(), 0, "SIGTERM still exits 0");
  await rm(work, { recursive: true, force: true });
});

/** The serve process's resident and peak resident memory (VmRSS, VmHWM), in bytes. */
function memory(): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** A copy of the demo payload with `file` (relative to it) written as `content`. */
async function hostile(name: string, file: string, content: string | Buffer): Promise<string> {
  const dir = join(work, name);
  await cp(DEMO, dir, { recursive: true });
  await writeFile(join(dir, file), content);
  return dir;
}

/**
 * Runs `work` while GetStatus is called throughout: each call must be answered within a few seconds (before the fix
 * a Preview of the alias payload stalled it for 6.5 s in the issue, 29 s here).
 */
async function whileAnswering<T>(work: Promise<T>): Promise<T> {
  let running = true;
  const slowest = (async () => {
    let worst = 0;
    while (running) {
      const start = Date.now();
      await server.client.getStatus({ timeoutMs: 60_000 });
      worst = Math.max(worst, Date.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return worst;
  })();
  try {
    return await work;
  } finally {
    running = false;
    assert.ok((await slowest) < 5_000, "GetStatus kept answering during the load");
  }
}

/** Updates to `image` (while GetStatus answers) and returns the load's failure. */
async function refusedUpdate(image: string): Promise<NonNullable<NonNullable<SyncWorkerStatus["loadPayloadStatus"]>["failure"]>> {
  const status = await whileAnswering(server.client.update({ generation: generation++, desired: { image } }));
  const load = status.loadPayloadStatus;
  assert.equal(load?.update?.image, image);
  assert.equal(load?.step, "LoadPayload", JSON.stringify(load));
  assert.ok(load.failure, "the load failed");
  return load.failure;
}

/** The accepted release is still the demo, applied, and the service answers. */
async function acceptedUnchanged(): Promise<void> {
  const status = await server.client.getStatus();
  assert.equal(status.actual?.version, "1.0.0");
  assert.equal(status.actual?.image, DEMO);
  assert.equal(status.failure, undefined, "the worker keeps applying the accepted payload");
}

/** A ConfigMap the demo payload includes (its profile annotation), so a load that accepted it would apply it. */
const configMap = (name: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: demo-web\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\n`;

test(
  "a 1 MiB anchored value aliased 300 times is refused at --payload-max-alias-bytes, without the 300 MB, in Update and Preview",
  { timeout: 120_000 },
  async () => {
    const bomb = `${configMap("bomb")}data:\n  big: &big ${"x".repeat(MiB)}\n${Array.from({ length: 300 }, (_, i) => `  k${i}: *big`).join("\n")}\n`;
    const image = await hostile("alias", "release-manifests/0000_90_z_bomb.yaml", bomb);
    const before = memory();
    const failure = await refusedUpdate(image);
    assert.equal(failure.reason, "UpdatePayloadIntegrity");
    assert.match(
      failure.message,
      /parse 0000_90_z_bomb\.yaml: error parsing: yaml: aliases expand to more than 8388608 bytes \(the payload's limit\) \(document 1, line 17\)/,
    );
    await acceptedUnchanged();

    const previewError = await whileAnswering(
      (async () => {
        for await (const response of server.client.preview({ desired: { image } }, { timeoutMs: 60_000 }))
          assert.fail(`a preview answer: ${JSON.stringify(response)}`);
      })().then(
        () => undefined,
        (err: unknown) => err,
      ),
    );
    assert.ok(previewError instanceof SyncWorkerError, String(previewError));
    assert.equal(previewError.code, Code.FailedPrecondition);
    assert.match(previewError.rawMessage, /0000_90_z_bomb\.yaml: error parsing: yaml: aliases expand to more than 8388608 bytes/);

    // Before the fix the Update took the peak from ~200 MB to ~1.9 GB here, a Preview to ~1.4 GB.
    const grew = memory().peak - before.peak;
    assert.ok(grew < 150 * MiB, `peak RSS grew by ${Math.round(grew / MiB)} MiB`);
    await acceptedUnchanged();
  },
);

test(
  "a document nested 5,000 levels deep is refused in the loader thread naming the file, not accepted or left to time out",
  { timeout: 120_000 },
  async () => {
    const json = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","namespace":"demo-web","annotations":{"include.release.openshift.io/self-managed-high-availability":"true"}},"data":${'{"a":'.repeat(5000)}"v"${"}".repeat(5000)}}`;
    const failure = await refusedUpdate(await hostile("deep-json", "release-manifests/0000_90_z_deep.json", json));
    assert.equal(failure.reason, "UpdatePayloadIntegrity");
    assert.match(
      failure.message,
      /parse 0000_90_z_deep\.json: error parsing: json: offset \d+: invalid character '\{' exceeded max depth \(document 1, line 1, column \d+\)/,
    );

    const yaml = `${configMap("deep")}data:\n${Array.from({ length: 5000 }, (_, i) => `${" ".repeat(i + 2)}k:`).join("\n")} v\n`;
    const deepYaml = await refusedUpdate(await hostile("deep-yaml", "release-manifests/0000_90_z_deep.yaml", yaml));
    assert.match(deepYaml.message, /parse 0000_90_z_deep\.yaml: error parsing: yaml: exceeded max depth of 256 \(document 1, line 1\)/);
    await acceptedUnchanged();
  },
);

test("a Latin-1 byte and NUL, BEL or ESC in a YAML value are refused naming the file and line", { timeout: 120_000 }, async () => {
  const latin1 = Buffer.concat([Buffer.from(`${configMap("latin1")}data:\n  city: M`), Buffer.from([0xfc]), Buffer.from("nchen\n")]);
  const bad = await refusedUpdate(await hostile("latin1", "release-manifests/0000_90_z_latin1.yaml", latin1));
  assert.equal(bad.reason, "UpdatePayloadIntegrity");
  assert.match(bad.message, /parse 0000_90_z_latin1\.yaml: error parsing: invalid UTF-8 at byte offset \d+ \(line 9\)/);
  for (const [name, char] of [
    ["nul", "\x00"],
    ["bel", "\x07"],
    ["esc", "\x1b"],
  ] as const) {
    const failure = await refusedUpdate(await hostile(name, `release-manifests/0000_90_z_${name}.yaml`, `${configMap(name)}data:\n  v: "a${char}b"\n`));
    assert.match(
      failure.message,
      new RegExp(
        `parse 0000_90_z_${name}\\.yaml: error parsing: error converting YAML to JSON: yaml: control characters are not allowed \\(U\\+00${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}\\) \\(document 1, line 9\\)`,
      ),
    );
  }
  await acceptedUnchanged();
});

test("release-metadata and image-references failures carry a reason and name their file", { timeout: 120_000 }, async () => {
  const metadata = await refusedUpdate(
    await hostile("metadata", "release-manifests/release-metadata", Buffer.from('{"kind": "cincinnati-metadata-v0", "version": "1.0.0-\xe9"}', "latin1")),
  );
  assert.equal(metadata.reason, "ReleaseMetadataInvalid");
  assert.match(metadata.message, /^release-manifests\/release-metadata:1: invalid UTF-8 at byte offset 53 \(line 1\)$/);
  const refs = await refusedUpdate(
    await hostile("refs", "release-manifests/image-references", "kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0\x1b[2J\n"),
  );
  assert.equal(refs.reason, "ImageReferencesInvalid");
  assert.match(refs.message, /^release-manifests\/image-references:4: unmarshal image-references: yaml: control characters are not allowed \(U\+001B\)$/);
  await acceptedUnchanged();
});
