import { test } from "node:test";
import assert from "node:assert/strict";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PayloadError } from "../../../src/payload/errors.js";
import type { PayloadFs } from "../../../src/payload/load.js";
import { nodePayloadFs } from "../../../src/retrieval/node-fs.js";
import { DirectoryRetriever, NO_IMAGE_MESSAGE } from "../../../src/retrieval/retrieve.js";
import { UpdateError } from "../../../src/core/index.js";
import { tempRelease } from "../../harness/payload-gen.js";
import { SKELETON, tempPayload } from "../payload/helpers.js";

const RELEASE = await tempRelease();

const signal = new AbortController().signal;
const desired = (image: string) => ({ version: "", image, force: false });

test("an absolute directory is retrieved in place, unverified", async () => {
  const info = await new DirectoryRetriever().retrieve(desired(RELEASE), signal);
  assert.deepEqual(info, { directory: RELEASE, local: false, verified: false });
});

test("a file:// URL names the directory", async () => {
  const info = await new DirectoryRetriever().retrieve(desired(pathToFileURL(RELEASE).href), signal);
  assert.equal(info.directory, RELEASE);
});

test("an empty image cannot be retrieved", async () => {
  await assert.rejects(new DirectoryRetriever().retrieve(desired(""), signal), (err: unknown) => {
    assert.ok(err instanceof PayloadError);
    assert.deepEqual([err.kind, err.step, err.reason], ["NoImage", "RetrievePayload", ""], "a plain error upstream");
    assert.equal((err as Error).message, NO_IMAGE_MESSAGE);
    assert.equal(NO_IMAGE_MESSAGE, "no payload image has been specified and the contents of the payload cannot be retrieved");
    return true;
  });
});

const FAILURES: { name: string; image: string; message: RegExp }[] = [
  {
    name: "missing directory",
    image: "/nonexistent/payload",
    message: /^Unable to download and prepare the update: stat \/nonexistent\/payload: no such file or directory$/,
  },
  {
    name: "missing directory as file URL",
    image: "file:///nonexistent/payload",
    message: /^Unable to download and prepare the update: stat \/nonexistent\/payload: no such file or directory$/,
  },
  {
    name: "OCI reference by digest",
    image: "quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef",
    message:
      /^Unable to download and prepare the update: OCI image references are not supported yet by this retriever \(image "quay\.io\/openshift-release-dev\/ocp-release@sha256:0123456789abcdef"\)/,
  },
  { name: "OCI reference by tag", image: "quay.io/x/y:4.16.0", message: /OCI image references are not supported yet.*quay\.io\/x\/y:4\.16\.0/ },
  { name: "relative path", image: "payloads/real-a", message: /OCI image references are not supported yet.*payloads\/real-a/ },
];

for (const tc of FAILURES) {
  test(`retrieval fails: ${tc.name}`, async () => {
    await assert.rejects(new DirectoryRetriever().retrieve(desired(tc.image), signal), (err: unknown) => {
      assert.ok(err instanceof PayloadError && err instanceof UpdateError);
      assert.equal(err.reason, "UpdatePayloadRetrievalFailed");
      assert.equal(err.step, "RetrievePayload");
      assert.match(err.message, tc.message);
      return true;
    });
  });
}

test("a directory that is not a payload fails retrieval, naming what is missing", async () => {
  const files: Record<string, string> = { ...SKELETON };
  delete files["release-manifests/image-references"];
  const { dir, cleanup } = await tempPayload(files);
  try {
    await assert.rejects(new DirectoryRetriever().retrieve(desired(dir), signal), {
      reason: "UpdatePayloadRetrievalFailed",
      message: `Unable to download and prepare the update: stat ${join(dir, "release-manifests/image-references")}: no such file or directory`,
    });
  } finally {
    await cleanup();
  }
});

test("a file instead of a directory fails retrieval: as missing without payload roots (nothing tells what exists), as what it is under one", async () => {
  const file = join(RELEASE, "release-manifests", "release-metadata");
  await assert.rejects(new DirectoryRetriever().retrieve(desired(file), signal), {
    reason: "UpdatePayloadRetrievalFailed",
    message: `Unable to download and prepare the update: stat ${file}: no such file or directory`,
  });
  await assert.rejects(new DirectoryRetriever(undefined, [await realpath(RELEASE)]).retrieve(desired(await realpath(file)), signal), {
    reason: "UpdatePayloadRetrievalFailed",
    message: /not a directory/,
  });
});

test("without payload roots a forbidden path reads exactly as a missing one, at the top and inside the payload", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON });
  // The tests run as root, whom no permission stops: the file system answers EACCES as it would for a service user.
  const forbidden = new Set([join(dir, "secret"), join(dir, "manifests")]);
  const fs: PayloadFs = {
    ...nodePayloadFs,
    stat: async (path) => {
      if (forbidden.has(path)) throw Object.assign(new Error(`EACCES: permission denied, stat '${path}'`), { code: "EACCES" });
      return nodePayloadFs.stat(path);
    },
  };
  const failure = (image: string): Promise<string> =>
    new DirectoryRetriever(fs).retrieve(desired(image), signal).then(
      () => "loaded",
      (err: Error) => err.message,
    );
  try {
    assert.equal(await failure(join(dir, "secret")), `Unable to download and prepare the update: stat ${join(dir, "secret")}: no such file or directory`);
    assert.equal(await failure(join(dir, "secret")), (await failure(join(dir, "absent"))).replace("absent", "secret"));
    assert.equal(await failure(dir), `Unable to download and prepare the update: stat ${join(dir, "manifests")}: no such file or directory`);
  } finally {
    await cleanup();
  }
});

test("retrieval honours an aborted signal", async () => {
  const ac = new AbortController();
  ac.abort(new Error("stop"));
  await assert.rejects(new DirectoryRetriever().retrieve(desired(RELEASE), ac.signal), { message: "stop" });
});

test("uses the injected PayloadFs", async () => {
  const seen: string[] = [];
  const fs = {
    readdir: async () => [],
    readFile: async () => "",
    realpath: async (p: string) => p,
    stat: async (p: string) => (seen.push(p), { isDirectory: !p.includes("release-metadata") && !p.includes("image-references") }),
  };
  const info = await new DirectoryRetriever(fs).retrieve(desired("/virtual"), signal);
  assert.equal(info.directory, "/virtual");
  assert.deepEqual(seen, [
    "/virtual",
    "/virtual/manifests",
    "/virtual/release-manifests",
    "/virtual/release-manifests/release-metadata",
    "/virtual/release-manifests/image-references",
  ]);
});

test("a file URL with a remote host is rejected as retrieval failure", async () => {
  await assert.rejects(new DirectoryRetriever().retrieve(desired("file://remote-host/payload"), signal), {
    reason: "UpdatePayloadRetrievalFailed",
    message: /^Unable to download and prepare the update: invalid file URL "file:\/\/remote-host\/payload"/,
  });
});
