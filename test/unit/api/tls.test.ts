import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverCredentials } from "../../../src/api/tls.js";
import { ValueError } from "../../../src/config/index.js";
import { makeTestPki } from "../../harness/tls.js";
import { tierTests } from "../../harness/tiers.js";

const { test } = tierTests("tls");

const refusal = (option: string, text: RegExp) => (err: unknown) => err instanceof ValueError && err.option === option && text.test(err.message);

test("TLS files: a garbage certificate is blamed on --tls-cert, a garbage key on --tls-key, a mismatch on the key; each names its file", async () => {
  const pki = await makeTestPki();
  const dir = await mkdtemp(join(tmpdir(), "syncworker-tls-"));
  const garbage = join(dir, "garbage.pem");
  await writeFile(garbage, "not a PEM file\n");
  assert.throws(
    () => serverCredentials({ cert: garbage, key: pki.serverKey, clientCa: "" }),
    refusal("tls-cert", new RegExp(`${garbage} holds no PEM certificate`)),
  );
  assert.throws(
    () => serverCredentials({ cert: pki.serverCert, key: garbage, clientCa: "" }),
    refusal("tls-key", new RegExp(`${garbage} holds no PEM private key`)),
  );
  assert.throws(() => serverCredentials({ cert: pki.serverCert, key: pki.clientKey, clientCa: "" }), refusal("tls-key", /does not fit/));
  assert.throws(() => serverCredentials({ cert: dir, key: pki.serverKey, clientCa: "" }), refusal("tls-cert", new RegExp(`cannot read ${dir}: EISDIR`)));
  assert.ok(serverCredentials({ cert: pki.serverCert, key: pki.serverKey, clientCa: "" }));
});
