import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { signPayload } from "../../../src/cli/sign.js";
import { ValueError } from "../../../src/config/index.js";
import { RegistryClient } from "../../../src/retrieval/index.js";

test("sign-payload: an unreadable --passphrase-file (a directory) is refused naming the flag and the path", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-sign-"));
  const registry = new RegistryClient({ authFile: "", authFileOptional: true, insecureHosts: [] });
  const image = `quay.io/a/b@sha256:${"1".repeat(64)}`;
  await assert.rejects(
    signPayload(image, { key: join(dir, "key.asc"), passphraseFile: dir, store: dir }, registry, new Date(), AbortSignal.timeout(5_000)),
    (err: unknown) => err instanceof ValueError && err.option === "passphrase-file" && err.message.includes(`${dir}: EISDIR`),
  );
  await registry.close();
});
