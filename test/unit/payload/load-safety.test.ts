// Only regular files and directories inside the payload are read: FIFOs, sockets and links out of the payload are
// refused naming the file, promptly and without revealing what lies outside.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { PayloadError } from "../../../src/payload/errors.js";
import { loadUpdate, type LoadOptions } from "../../../src/payload/load.js";
import { nodePayloadFs } from "../../../src/retrieval/node-fs.js";
import { DirectoryRetriever } from "../../../src/retrieval/retrieve.js";
import { REVISION_CAPS, SKELETON, tempPayload, testObject } from "./helpers.js";

const OPTS: LoadOptions = { knownCapabilities: REVISION_CAPS, architecture: "amd64" };
const SECRET = "outside-secret-content";

/** A payload with one good manifest, `prepare`d further; plus a directory outside it holding a secret. */
async function withPayload(prepare: (dir: string, outside: string) => Promise<void>, check: (dir: string) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_10_a_ok.yaml": testObject("ok") });
  const outside = await mkdtemp(join(tmpdir(), "syncworker-outside-"));
  await writeFile(join(outside, "0000_20_secret.yaml"), `${testObject("secret")}\n# ${SECRET}\n`);
  try {
    await prepare(dir, outside);
    await check(dir);
  } finally {
    await cleanup();
    await rm(outside, { recursive: true, force: true });
  }
}

async function refused(dir: string, file: string, pattern: RegExp): Promise<void> {
  const started = Date.now();
  await assert.rejects(loadUpdate(dir, "img", OPTS, nodePayloadFs), (err: unknown) => {
    assert.ok(err instanceof PayloadError);
    assert.equal(err.file, file);
    assert.match(err.message, pattern);
    assert.ok(!err.message.includes(SECRET) && !err.message.includes("syncworker-outside-"), err.message);
    return true;
  });
  assert.ok(Date.now() - started < 5_000, "refused promptly");
}

const cases: { name: string; file: string; pattern: RegExp; prepare: (dir: string, outside: string) => Promise<void> }[] = [
  {
    name: "a FIFO named like a manifest",
    file: "release-manifests/0000_20_x.yaml",
    pattern: /release-manifests\/0000_20_x\.yaml is a named pipe \(FIFO\), not a regular file/,
    prepare: async (dir) => void execFileSync("mkfifo", [join(dir, "release-manifests/0000_20_x.yaml")]),
  },
  {
    name: "a unix socket named like a manifest",
    file: "release-manifests/0000_20_sock.yaml",
    pattern: /release-manifests\/0000_20_sock\.yaml is a socket, not a regular file/,
    prepare: async (dir) => {
      const server = createServer().listen(join(dir, "release-manifests/0000_20_sock.yaml"));
      await new Promise((resolve) => server.once("listening", resolve));
      // Closing removes the socket file; keep it and let the process exit with the test.
      server.unref();
    },
  },
  {
    name: "a manifest linked out of the payload",
    file: "release-manifests/0000_20_link.yaml",
    pattern: /release-manifests\/0000_20_link\.yaml is a symbolic link leading out of the payload/,
    prepare: (dir, outside) => symlink(join(outside, "0000_20_secret.yaml"), join(dir, "release-manifests/0000_20_link.yaml")),
  },
  {
    name: "manifests/ linked out of the payload",
    file: "manifests",
    pattern: /manifests is a symbolic link leading out of the payload/,
    prepare: async (dir, outside) => {
      await rm(join(dir, "manifests"), { recursive: true });
      await symlink(outside, join(dir, "manifests"));
    },
  },
  {
    name: "release-metadata linked out of the payload",
    file: "release-manifests/release-metadata",
    pattern: /release-manifests\/release-metadata is a symbolic link leading out of the payload/,
    prepare: async (dir, outside) => {
      await writeFile(join(outside, "release-metadata"), SECRET);
      await rm(join(dir, "release-manifests/release-metadata"));
      await symlink(join(outside, "release-metadata"), join(dir, "release-manifests/release-metadata"));
    },
  },
  {
    name: "release-metadata as a FIFO",
    file: "release-manifests/release-metadata",
    pattern: /release-manifests\/release-metadata: .*release-metadata is a named pipe \(FIFO\), not a regular file/,
    prepare: async (dir) => {
      await rm(join(dir, "release-manifests/release-metadata"));
      execFileSync("mkfifo", [join(dir, "release-manifests/release-metadata")]);
    },
  },
  {
    name: "health-rules linked out of the payload",
    file: "release-manifests/health-rules",
    pattern: /^release-manifests\/health-rules: release-manifests\/health-rules is a symbolic link leading out of the payload$/,
    prepare: (dir, outside) => symlink(join(outside, "0000_20_secret.yaml"), join(dir, "release-manifests/health-rules")),
  },
  {
    name: "health-rules as a FIFO",
    file: "release-manifests/health-rules",
    pattern: /^release-manifests\/health-rules: .*not a regular file/,
    prepare: async (dir) => void execFileSync("mkfifo", [join(dir, "release-manifests/health-rules")]),
  },
];

for (const tc of cases) test(`refused naming the file: ${tc.name}`, () => withPayload(tc.prepare, (dir) => refused(dir, tc.file, tc.pattern)));

test("a link to a file inside the payload is read", () =>
  withPayload(
    (dir) => symlink("0000_10_a_ok.yaml", join(dir, "release-manifests/0000_20_alias.yaml")),
    async (dir) => {
      const update = await loadUpdate(dir, "img", OPTS, nodePayloadFs);
      assert.deepEqual(
        update.manifests.map((m) => m.originalFilename),
        ["0000_10_a_ok.yaml", "0000_20_alias.yaml"],
      );
    },
  ));

test("a payload's health rules are carried as text for the applier, and none when the file is absent", async () => {
  const rules = 'rules:\n  - group: example.com\n    current: "true"\n';
  await withPayload(
    (dir) => writeFile(join(dir, "release-manifests/health-rules"), rules),
    async (dir) => {
      const update = await loadUpdate(dir, "img", OPTS, nodePayloadFs);
      assert.deepEqual(update.healthRules, { file: "release-manifests/health-rules", text: rules });
      assert.deepEqual(
        update.manifests.map((m) => m.originalFilename),
        ["0000_10_a_ok.yaml"],
        "not read as a manifest",
      );
    },
  );
  await withPayload(
    async () => undefined,
    async (dir) => assert.equal((await loadUpdate(dir, "img", OPTS, nodePayloadFs)).healthRules, undefined),
  );
});

test("payload roots: a directory resolving outside every root is refused without saying what is there", async () => {
  const root = await mkdtemp(join(tmpdir(), "syncworker-root-"));
  const { dir: outside, cleanup } = await tempPayload(SKELETON);
  try {
    await symlink(outside, join(root, "escape"));
    const retriever = new DirectoryRetriever(undefined, [root]);
    for (const image of [
      outside,
      join(root, "escape"),
      `${root}/../${outside.slice(tmpdir().length + 1)}`,
      `file://${outside}`,
      join(root, "../nonexistent"),
    ]) {
      await assert.rejects(
        retriever.admit(image),
        { kind: "OutsideRoot", message: `payload directory ${JSON.stringify(image.replace(/^file:\/\//, ""))} is not under a payload root` },
        image,
      );
    }
    await assert.rejects(retriever.admit(join(root, "missing")), { kind: "Retrieval", message: /no such file or directory/ });
    await symlink("escape", join(root, "inner"));
    await assert.rejects(retriever.admit(join(root, "inner")), { kind: "OutsideRoot" });
  } finally {
    await rm(root, { recursive: true, force: true });
    await cleanup();
  }
});

test("payload roots: a directory under a root, also through a link inside it, retrieves as its resolved path", async () => {
  const root = await mkdtemp(join(tmpdir(), "syncworker-root-"));
  try {
    for (const [rel, content] of Object.entries(SKELETON)) {
      await mkdir(dirname(join(root, "p", rel)), { recursive: true });
      await writeFile(join(root, "p", rel), content);
    }
    await symlink("p", join(root, "current"));
    const retriever = new DirectoryRetriever(undefined, [root]);
    const desired = { version: "", image: `file://${root}/current`, force: false };
    assert.equal((await retriever.retrieve(desired, new AbortController().signal)).directory, join(root, "p"));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
