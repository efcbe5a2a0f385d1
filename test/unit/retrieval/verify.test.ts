import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as openpgp from "openpgp";
import {
  addToStore,
  checkClaim,
  claimFor,
  configureVerifier,
  loadKeyrings,
  readKeyring,
  releaseVerifier,
  signatureStore,
  signImage,
  verifyWithKeyring,
  type Keyring,
} from "../../../src/retrieval/verify/index.js";

const DIGEST = `sha256:${"ab".repeat(32)}`;
const OTHER = `sha256:${"cd".repeat(32)}`;
const REFERENCE = `registry.example/ocp/release@${DIGEST}`;
const NOW = new Date(Date.UTC(2026, 5, 1, 12, 0, 0));
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function generate(name: string): Promise<{ key: openpgp.PrivateKey; armoredPublic: string }> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    userIDs: [{ name, email: `${name}@example.com` }],
    date: new Date(NOW.getTime() - 60_000),
    format: "object",
  });
  return { key: privateKey, armoredPublic: publicKey.armor() };
}

describe("atomic container signature claims", () => {
  const claim = (critical: unknown, optional: unknown = { creator: "x", timestamp: 1 }): Uint8Array => enc(JSON.stringify({ critical, optional }));
  const good = { type: "atomic container signature", image: { "docker-manifest-digest": DIGEST }, identity: { "docker-reference": REFERENCE } };
  const cases: { name: string; content: Uint8Array; error?: RegExp }[] = [
    { name: "valid", content: claim(good) },
    { name: "valid without optional", content: enc(JSON.stringify({ critical: good })) },
    { name: "what claimFor writes", content: claimFor(DIGEST, REFERENCE, "me", 1700000000) },
    { name: "not JSON", content: enc("{critical"), error: /^the signature is not valid JSON: / },
    { name: "not UTF-8", content: new Uint8Array([0xff, 0xfe]), error: /^the signature is not valid JSON: / },
    { name: "unknown top-level field", content: enc(JSON.stringify({ critical: good, extra: 1 })), error: /not valid JSON: .*extra/ },
    { name: "unknown critical field", content: claim({ ...good, more: true }), error: /not valid JSON: .*more.* at critical/ },
    { name: "fractional timestamp", content: claim(good, { timestamp: 1.5 }), error: /not valid JSON: .* at optional\.timestamp/ },
    { name: "wrong type", content: claim({ ...good, type: "cosign container image signature" }), error: /^signature is not the correct type$/ },
    { name: "no identity", content: claim({ ...good, identity: {} }), error: /^signature must have an identity$/ },
    { name: "another digest", content: claim({ ...good, image: { "docker-manifest-digest": OTHER } }), error: /^signature digest does not match$/ },
    { name: "no digest", content: claim({ type: good.type, identity: good.identity }), error: /^signature digest does not match$/ },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      if (tc.error) assert.throws(() => checkClaim(tc.content, DIGEST), { message: tc.error });
      else assert.equal(checkClaim(tc.content, DIGEST).digest, DIGEST);
    });
  }
  it("keeps the signer's reference, creator and timestamp", () => {
    assert.deepEqual(checkClaim(claimFor(DIGEST, REFERENCE, "me", 1700000000), DIGEST), {
      digest: DIGEST,
      reference: REFERENCE,
      creator: "me",
      timestamp: 1700000000,
    });
  });
});

describe("OpenPGP signed messages", () => {
  let trusted: Keyring;
  let other: Keyring;
  let key: openpgp.PrivateKey;
  before(async () => {
    const a = await generate("trusted");
    const b = await generate("other");
    key = a.key;
    trusted = await readKeyring("trusted.asc", enc(a.armoredPublic));
    other = await readKeyring("other.asc", enc(b.armoredPublic));
  });

  it("gives the signed claim back for the signer's keyring, binary or armored", async () => {
    const signature = await signImage({ digest: DIGEST, reference: REFERENCE }, key, NOW);
    assert.equal(checkClaim(await verifyWithKeyring(signature, trusted, NOW), DIGEST).reference, REFERENCE);
    const armored = await openpgp.sign({ message: await openpgp.createMessage({ binary: claimFor(DIGEST, REFERENCE, "x", 1) }), signingKeys: key, date: NOW });
    assert.equal(checkClaim(await verifyWithKeyring(enc(armored), trusted, NOW), DIGEST).digest, DIGEST);
  });

  it("refuses another keyring, an unsigned message and garbage", async () => {
    const signature = await signImage({ digest: DIGEST, reference: REFERENCE }, key, NOW);
    await assert.rejects(verifyWithKeyring(signature, other, NOW), /^Error: signature error: /);
    const unsigned = (await openpgp.createMessage({ binary: claimFor(DIGEST, REFERENCE, "x", 1) })).write();
    await assert.rejects(verifyWithKeyring(unsigned as Uint8Array, trusted, NOW), /^Error: not signed$/);
    await assert.rejects(verifyWithKeyring(enc("not a message"), trusted, NOW), /^Error: could not read the message: /);
  });

  it("judges a signature at the verifier's now: one dated after it is refused", async () => {
    const signature = await signImage({ digest: DIGEST, reference: REFERENCE }, key, new Date(NOW.getTime() + 3600_000));
    await verifyWithKeyring(signature, trusted, new Date(NOW.getTime() + 7200_000));
    await assert.rejects(verifyWithKeyring(signature, trusted, NOW), /^Error: signature error: /);
  });

  it("reads binary keyrings and refuses what is not one", async () => {
    const binary = (await generate("bin")).key.toPublic().write();
    assert.equal((await readKeyring("bin.gpg", binary)).keys.length, 1);
    await assert.rejects(readKeyring("junk", enc("junk")), /^Error: unable to read keyring junk: /);
  });
});

describe("--verification-keys directories", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "keys-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("one keyring per file, hidden files skipped; an empty directory or a bad file names itself", async () => {
    await assert.rejects(loadKeyrings(dir), new RegExp(`${dir} holds no key files`));
    await writeFile(join(dir, "b.asc"), (await generate("b")).armoredPublic);
    await writeFile(join(dir, "a.gpg"), (await generate("a")).key.toPublic().write());
    await writeFile(join(dir, ".hidden"), "junk");
    assert.deepEqual(
      (await loadKeyrings(dir)).map((k) => k.name),
      ["a.gpg", "b.asc"],
    );
    await writeFile(join(dir, "c.asc"), "junk");
    await assert.rejects(loadKeyrings(dir), new RegExp(`^Error: ${join(dir, "c.asc")}: unable to read keyring`));
  });
});

describe("release verifier with a signature store over HTTP", () => {
  let server: Server;
  let base: URL;
  let storeDir: string;
  const requests: string[] = [];
  /** Paths answered 500 instead of their file. */
  const broken = new Set<string>();
  let trusted: Keyring;
  let second: Keyring;
  let key: openpgp.PrivateKey;
  let secondKey: openpgp.PrivateKey;
  let unknownKey: openpgp.PrivateKey;
  const now = (): Date => NOW;
  const signal = new AbortController().signal;

  before(async () => {
    storeDir = await mkdtemp(join(tmpdir(), "sigstore-"));
    // The store is a plain file layout; this server is the static web server a user would put in front of it.
    server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
      requests.push(path);
      if (broken.has(path)) return void res.writeHead(500).end();
      readFile(join(storeDir, path.replace(/^\/store\//, ""))).then(
        (data) => res.writeHead(200).end(data),
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/store`);
    const [a, b, c] = await Promise.all([generate("trusted"), generate("second"), generate("unknown")]);
    key = a.key;
    secondKey = b.key;
    unknownKey = c.key;
    trusted = await readKeyring("trusted.asc", enc(a.armoredPublic));
    second = await readKeyring("second.asc", enc(b.armoredPublic));
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(storeDir, { recursive: true, force: true });
  });

  const digestOf = (n: number): string => `sha256:${n.toString(16).padStart(64, "0")}`;
  const sign = async (digest: string, by: openpgp.PrivateKey, names = digest): Promise<void> => {
    await addToStore(storeDir, digest, await signImage({ digest: names, reference: `r@${names}` }, by, NOW));
  };

  it("verifies a digest signed by the trusted key, and remembers it", async () => {
    const digest = digestOf(1);
    await sign(digest, key);
    const verify = releaseVerifier({ keyrings: [trusted], sources: [signatureStore(base)], now });
    assert.deepEqual(await verify(digest, `r@${digest}`, signal), { verified: true });
    assert.deepEqual(requests.splice(0), [`/store/sha256=${digest.slice(7)}/signature-1`]);
    assert.deepEqual(await verify(digest, `r@${digest}`, signal), { verified: true });
    assert.deepEqual(requests.splice(0), [], "a verified digest is not fetched again");
  });

  it("refuses an unknown signer, another digest and no signature, naming the keyring and why", async () => {
    const cases = [
      { digest: digestOf(2), setup: () => sign(digestOf(2), unknownKey), why: /signature error: / },
      { digest: digestOf(3), setup: () => sign(digestOf(3), key, OTHER), why: /signature digest does not match/ },
      { digest: digestOf(4), setup: async () => {}, why: /signature-1: no more signatures to check/ },
    ];
    for (const tc of cases) {
      await tc.setup();
      const result = await releaseVerifier({ keyrings: [trusted], sources: [signatureStore(base)], now })(tc.digest, `r@${tc.digest}`, signal);
      assert.equal(result.verified, false);
      assert.equal(result.error?.message, `unable to verify ${tc.digest} against keyrings: trusted.asc`);
      const cause = result.error?.cause as Error;
      assert.match(cause.message, tc.why);
      assert.match(cause.message, /2026-06-01T12:00:00Z: /, "errors are stamped as upstream stamps them");
    }
  });

  it("reads on past a bad signature and a failed request, and stops at the first missing one", async () => {
    const digest = digestOf(5);
    await sign(digest, unknownKey);
    await addToStore(storeDir, digest, enc("garbage"));
    await sign(digest, key);
    broken.add(`/store/sha256=${digest.slice(7)}/signature-2`);
    requests.splice(0);
    assert.deepEqual(await releaseVerifier({ keyrings: [trusted], sources: [signatureStore(base)], now })(digest, `r@${digest}`, signal), { verified: true });
    assert.deepEqual(
      requests.splice(0).map((p) => p.slice(-11)),
      ["signature-1", "signature-2", "signature-3"],
    );

    const gap = digestOf(6);
    await mkdir(join(storeDir, `sha256=${gap.slice(7)}`));
    await writeFile(join(storeDir, `sha256=${gap.slice(7)}`, "signature-2"), await signImage({ digest: gap, reference: "r" }, key, NOW));
    const result = await releaseVerifier({ keyrings: [trusted], sources: [signatureStore(base)], now })(gap, `r@${gap}`, signal);
    assert.equal(result.verified, false, "signature-2 is not read after signature-1 is missing");
    assert.equal(requests.splice(0).length, 1);
  });

  it("needs a signature from every keyring", async () => {
    const digest = digestOf(7);
    await sign(digest, key);
    const both = releaseVerifier({ keyrings: [trusted, second], sources: [signatureStore(base)], now });
    const result = await both(digest, `r@${digest}`, signal);
    assert.equal(result.error?.message, `unable to verify ${digest} against keyrings: second.asc`);
    await sign(digest, secondKey);
    assert.deepEqual(await both(digest, `r@${digest}`, signal), { verified: true });
  });

  it("reads the same layout from a file:// store, and checks the digest before any request", async () => {
    const digest = digestOf(8);
    await sign(digest, key);
    const verify = releaseVerifier({ keyrings: [trusted], sources: [signatureStore(pathToFileURL(storeDir))], now });
    assert.deepEqual(await verify(digest, `r@${digest}`, signal), { verified: true });
    requests.splice(0);
    const bad = await releaseVerifier({ keyrings: [trusted], sources: [signatureStore(base)], now })("sha256:../x", "r", signal);
    assert.equal(bad.error?.message, 'the provided release image digest has an invalid format: "sha256:../x"');
    const none = await verify("", "r", signal);
    assert.equal(none.error?.message, "release images that are not accessed via digest cannot be verified");
    assert.deepEqual(requests, []);
  });

  it("configured without keys, nothing is verified and nothing refused; with keys, stores are read", async () => {
    const none = configureVerifier({ keyrings: [], signatureStores: [base] }, undefined, now);
    assert.deepEqual(await none.verify(digestOf(10), "r", signal), { verified: false });
    await none.close();
    await sign(digestOf(10), key);
    const configured = configureVerifier({ keyrings: [trusted], signatureStores: [base] }, undefined, now);
    assert.deepEqual(await configured.verify(digestOf(10), "r", signal), { verified: true });
    assert.equal((await configured.verify(digestOf(11), "r", signal)).verified, false);
    await configured.close();
  });

  it("refuses when the stores do not answer within the verification's bound", async () => {
    const silent = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = new URL(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`);
      const result = await releaseVerifier({ keyrings: [trusted], sources: [signatureStore(url)], now, timeoutMs: 200 })(digestOf(12), "r", signal);
      assert.equal(result.error?.message, `unable to verify ${digestOf(12)} against keyrings: trusted.asc`);
      assert.match((result.error?.cause as Error).message, /signature lookup timed out after 0\.2s/);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("throws when the signal aborts instead of answering", async () => {
    const aborted = AbortSignal.abort(new Error("stopped"));
    await assert.rejects(releaseVerifier({ keyrings: [trusted], sources: [signatureStore(base)], now })(digestOf(9), "r", aborted), /stopped/);
  });
});
