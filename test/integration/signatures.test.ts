// Release-image signatures verified by a real `syncworker serve` as the CVO verifies them: images pushed to a
// real registry (Debian's docker-registry), signed with OpenPGP keys generated here, signatures served by a
// signature store (a plain HTTP file layout, as any static web server serves it) and kept in the registry's
// sha256-<hex>.sig tag. Trusted → verified in the status, the load status and the history; an unknown signer,
// a signature naming another digest and no signature → refused at RetrievePayload unless forced, and a forced
// update proceeds unverified, saying why in the load status's accepted risks.
import assert from "node:assert/strict";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as openpgp from "openpgp";
import type { SyncWorkerStatus, UpdateInput } from "@syncworker/client";
import { goArch } from "../../src/payload/index.js";
import { RegistryClient } from "../../src/retrieval/index.js";
import { parseReference, payloadLayer, pushImage } from "../../src/retrieval/registry/index.js";
import { addToStore, pushSignature, readSigningKey, registrySignatures, signImage } from "../../src/retrieval/verify/index.js";
import { runCli } from "../harness/cli.js";
import { startRegistry, tarLayer, type TestRegistry } from "../harness/registry.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("registry");

const DEMO = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const ARCH = goArch(process.arch);
const signal = new AbortController().signal;

let registry: TestRegistry;
let client: RegistryClient;
let server: ServerProcess;
let store: Server;
let storeDir: string;
let trusted: openpgp.PrivateKey;
let unknown: openpgp.PrivateKey;
let generation = 0;
let variant = 0;

const PASSPHRASE = "correct horse battery staple";
let keyFile: string;
let passphraseFile: string;

/** A key pair, armored; the private key protected by {@link PASSPHRASE}. */
async function generate(name: string): Promise<{ privateKey: string; publicKey: string }> {
  return openpgp.generateKey({ userIDs: [{ name, email: `${name}@example.com` }], passphrase: PASSPHRASE, format: "armored" });
}

before(async () => {
  registry = await startRegistry();
  client = new RegistryClient({ authFile: "", authFileOptional: true, insecureHosts: [registry.host] });
  const keys = await mkdtemp(join(tmpdir(), "syncworker-keys-"));
  const a = await generate("trusted");
  trusted = await readSigningKey(a.privateKey, PASSPHRASE);
  unknown = await readSigningKey((await generate("unknown")).privateKey, PASSPHRASE);
  await writeFile(join(keys, "trusted.asc"), a.publicKey);
  keyFile = join(keys, "..", `${keys.split("/").pop()}-signing.asc`);
  await writeFile(keyFile, a.privateKey, { mode: 0o600 });
  passphraseFile = `${keyFile}.pass`;
  await writeFile(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });

  storeDir = await mkdtemp(join(tmpdir(), "syncworker-sigstore-"));
  store = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    readFile(join(storeDir, path)).then(
      (data) => res.writeHead(200).end(data),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => store.listen(0, "127.0.0.1", resolve));
  const storeUrl = `http://127.0.0.1:${(store.address() as AddressInfo).port}/`;

  const cache = await mkdtemp(join(tmpdir(), "syncworker-payload-cache-"));
  server = await startServer(["--insecure-registry", registry.host, "--payload-cache", cache, "--verification-keys", keys, "--signature-store", storeUrl]);
});
after(async () => {
  assert.equal(await server?.stop(), 0);
  await client?.close();
  await registry?.stop();
  await new Promise((resolve) => store?.close(resolve));
});

/** The demo payload plus a layer of its own, so every image has a digest of its own. */
async function pushDemo(repository: string): Promise<{ image: string; digest: string }> {
  const extra = await tarLayer([{ name: `notes/variant-${++variant}`, content: String(variant) }]);
  const { digest } = await pushImage(client, `${registry.host}/${repository}:latest`, [await payloadLayer(DEMO), extra], ARCH, signal);
  return { image: `${registry.host}/${repository}@${digest}`, digest };
}

function request(image: string, force = false, acceptRisks: string[] = []): UpdateInput {
  return { generation: ++generation, desired: { version: "", image, force }, overrides: [], capabilities: undefined, state: 0, acceptRisks };
}

const completed = (image: string) => (s: SyncWorkerStatus) => s.actual?.image === image && s.completed >= 1 && s.done === s.total && !s.failure;

/** Updates to `image`, which must load, and waits until it is completely applied. */
async function updateCompletes(image: string, force = false, acceptRisks: string[] = []): Promise<{ accepted: SyncWorkerStatus; done: SyncWorkerStatus }> {
  const accepted = await server.client.update(request(image, force, acceptRisks));
  assert.equal(accepted.loadPayloadStatus?.failure, undefined, `loads: ${JSON.stringify(accepted.loadPayloadStatus)}`);
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded");
  return { accepted, done: await waitForStatus(server.client, completed(image), 120_000) };
}

test("an image signed by the trusted key with sign-payload is verified: in the status, the load status and the history", { timeout: 180_000 }, async () => {
  const fromStore = await pushDemo("release/signed-in-store");
  const signed = await runCli(["sign-payload", fromStore.image, "--key", keyFile, "--passphrase-file", passphraseFile, "--store", storeDir]);
  assert.equal(signed.code, 0, signed.stderr);
  assert.equal(signed.stdout, `signature for ${fromStore.digest} written to ${join(storeDir, `sha256=${fromStore.digest.slice(7)}`, "signature-1")}\n`);
  const first = await updateCompletes(fromStore.image);
  assert.equal(first.accepted.loadPayloadStatus?.verified, true);
  assert.equal(first.done.verified, true);
  assert.equal(first.done.history[0]?.image, fromStore.image);
  assert.equal(first.done.history[0]?.verified, true);

  // The same trust through the registry's .sig tag alone (nothing for this digest in the store), the image named by tag.
  const inRegistry = await pushDemo("release/signed-in-registry");
  const byTag = `${registry.host}/release/signed-in-registry:latest`;
  const pushed = await runCli(["sign-payload", byTag, "--key", keyFile, "--passphrase-file", passphraseFile, "--push", "--insecure-registry", registry.host]);
  assert.equal(pushed.code, 0, pushed.stderr);
  assert.equal(
    pushed.stdout,
    `signature for ${inRegistry.digest} pushed to ${registry.host}/release/signed-in-registry:sha256-${inRegistry.digest.slice(7)}.sig\n`,
  );
  const second = await updateCompletes(inRegistry.image);
  assert.equal(second.accepted.loadPayloadStatus?.verified, true);
  assert.equal(second.done.verified, true);
  assert.equal(second.done.history[0]?.image, inRegistry.image);
  assert.equal(second.done.history[0]?.verified, true);
  assert.equal(second.done.history[1]?.image, fromStore.image, "the previous release stays in the history");
});

test("sign-payload and serve refuse bad input naming it", { timeout: 60_000 }, async () => {
  const image = `${registry.host}/release/x@sha256:${"1".repeat(64)}`;
  const nowhere = await runCli(["sign-payload", image, "--key", keyFile, "--passphrase-file", passphraseFile]);
  assert.equal(nowhere.code, 2, "a flag refused: a usage error");
  assert.match(nowhere.stderr, /--store: say where the signature goes/);
  const wrong = join(storeDir, "wrong-passphrase");
  await writeFile(wrong, "nope\n");
  const badPassphrase = await runCli(["sign-payload", image, "--key", keyFile, "--passphrase-file", wrong, "--store", storeDir]);
  assert.equal(badPassphrase.code, 2);
  assert.match(badPassphrase.stderr, new RegExp(`--key: ${keyFile}: `));

  const junkKeys = await mkdtemp(join(tmpdir(), "syncworker-junk-keys-"));
  await writeFile(join(junkKeys, "junk.asc"), "not a key");
  const state = await mkdtemp(join(tmpdir(), "syncworker-state-"));
  const serve = await runCli(["serve", "--listen", "127.0.0.1:0", "--state-dir", state, "--verification-keys", junkKeys]);
  assert.equal(serve.code, 2);
  assert.match(serve.stderr, new RegExp(`--verification-keys: ${join(junkKeys, "junk.asc")}: unable to read keyring junk.asc`));
  const storeOnly = await runCli(["serve", "--listen", "127.0.0.1:0", "--state-dir", state, "--signature-store", "http://127.0.0.1:1/"]);
  assert.equal(storeOnly.code, 2);
  assert.match(storeOnly.stderr, /--signature-store: needs --verification-keys/);
});

test("a second signature in the registry's tag keeps the first, and both are read back", { timeout: 60_000 }, async () => {
  const { image, digest } = await pushDemo("release/two-signatures");
  const ref = parseReference(image);
  const one = await signImage({ digest, reference: image }, unknown, new Date());
  const two = await signImage({ digest, reference: image }, trusted, new Date());
  await pushSignature(client, ref, digest, one, signal);
  await pushSignature(client, ref, digest, two, signal);
  await pushSignature(client, ref, digest, two, signal);
  const read: (Uint8Array | Error)[] = [];
  for await (const s of registrySignatures(client).signatures(digest, image, signal)) read.push(s);
  assert.deepEqual(
    read.map((s) => (s instanceof Error ? s.message : Buffer.from(s).toString("base64"))),
    [Buffer.from(one).toString("base64"), Buffer.from(two).toString("base64")],
  );
});

for (const tc of [
  {
    name: "signed with an unknown key",
    repository: "release/unknown-signer",
    sign: async (digest: string, image: string) => addToStore(storeDir, digest, await signImage({ digest, reference: image }, unknown, new Date())),
    why: /signature error: /,
    accept: "force",
  },
  {
    name: "a signature naming another digest",
    repository: "release/other-digest",
    sign: async (digest: string, image: string) => {
      const other = `sha256:${"0".repeat(64)}`;
      await pushSignature(client, parseReference(image), digest, await signImage({ digest: other, reference: image }, trusted, new Date()), signal);
    },
    why: /signature digest does not match/,
    accept: "named",
  },
  { name: "no signature", repository: "release/unsigned", sign: async () => {}, why: /no more signatures to check/, accept: "force" },
] as const) {
  // Forced (every risk) or with the one risk ImageVerification named: either takes the unverified image.
  const because = tc.accept === "force" ? "the update was forced" : "the update accepts the risk ImageVerification";
  test(
    `${tc.name}: refused without force, accepted unverified ${tc.accept === "force" ? "with force" : "accepting the risk ImageVerification"}`,
    { timeout: 180_000 },
    async () => {
      const before = await server.client.getStatus();
      const { image, digest } = await pushDemo(tc.repository);
      await tc.sign(digest, image);

      const refused = await server.client.update(request(image));
      const load = refused.loadPayloadStatus;
      assert.equal(load?.step, "RetrievePayload", JSON.stringify(load));
      assert.equal(load?.failure?.reason, "ImageVerificationFailed");
      assert.equal(
        load?.failure?.message,
        `The update cannot be verified: unable to verify ${digest} against keyrings: trusted.asc; to apply it anyway, accept the risk ImageVerification (accept_risks; --accept-risk in the CLI) or force the update (every risk)`,
      );
      assert.equal(load?.verified, false);
      assert.equal(refused.actual?.image, before.actual?.image, "the running release stays in effect");

      const forced = tc.accept === "force" ? await updateCompletes(image, true) : await updateCompletes(image, false, ["ImageVerification"]);
      const accepted = forced.accepted.loadPayloadStatus;
      assert.equal(accepted?.verified, false);
      assert.match(
        accepted?.acceptedRisks ?? "",
        new RegExp(
          `^Target release version="" image="${image}" cannot be verified, but continuing anyway because ${because}: unable to verify ${digest} against keyrings: trusted.asc`,
        ),
      );
      assert.match(accepted?.acceptedRisks ?? "", tc.why, "the risk names why the signature was not accepted");
      assert.equal(forced.done.verified, false);
      assert.equal(forced.done.history[0]?.image, image);
      assert.equal(forced.done.history[0]?.verified, false);
      assert.match(
        forced.done.history[0]?.acceptedRisks ?? "",
        new RegExp(`cannot be verified, but continuing anyway because ${because}`),
        "the history keeps what the release was accepted despite",
      );
    },
  );
}
