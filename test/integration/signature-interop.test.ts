// Simple signing as the standard tools write and read it: signatures made by `skopeo standalone-sign` and by
// `gpg --sign` over the documented claim verify here, and those `sign-payload` makes verify with
// `skopeo standalone-verify` (containers/image's own verifier). Debian's gpg and skopeo, with a throwaway GNUPGHOME.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as openpgp from "openpgp";
import { checkClaim, readKeyring, signImage, verifyWithKeyring, type Keyring } from "../../src/retrieval/verify/index.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("signatures", "registry");

const run = promisify(execFile);
const REFERENCE = "registry.example/ocp/release:4.20.0";
let home: string;
let dir: string;
let fingerprint: string;
let keyring: Keyring;
let manifest: string;
let digest: string;

const tool = (cmd: string, args: readonly string[]) => run(cmd, args, { env: { ...process.env, GNUPGHOME: home } });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "syncworker-interop-"));
  home = join(dir, "gnupg");
  await run("mkdir", ["-m", "700", home]);
  await tool("gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "Release Signer <release@example.com>", "ed25519", "sign", "never"]);
  const listing = (await tool("gpg", ["--list-keys", "--with-colons"])).stdout;
  fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(listing)![1]!;
  keyring = await readKeyring("release.asc", Buffer.from((await tool("gpg", ["--armor", "--export", fingerprint])).stdout));
  manifest = join(dir, "manifest.json");
  await writeFile(manifest, JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: {}, layers: [] }));
  digest = (await run("skopeo", ["manifest-digest", manifest])).stdout.trim();
});
after(async () => {
  await tool("gpgconf", ["--kill", "gpg-agent"]).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

test("a signature by skopeo standalone-sign verifies", async () => {
  const out = join(dir, "skopeo.sig");
  await tool("skopeo", ["standalone-sign", manifest, REFERENCE, fingerprint, "--output", out]);
  const claim = checkClaim(await verifyWithKeyring(await readFile(out), keyring, new Date()), digest);
  assert.equal(claim.reference, REFERENCE);
});

test("gpg --sign over the documented claim verifies, and over another digest's claim does not", async () => {
  const sign = async (signed: string): Promise<Buffer> => {
    const claim = join(dir, `claim-${signed.slice(7, 15)}.json`);
    await writeFile(
      claim,
      JSON.stringify({
        critical: { type: "atomic container signature", image: { "docker-manifest-digest": signed }, identity: { "docker-reference": REFERENCE } },
        optional: { creator: "gpg" },
      }),
    );
    await tool("gpg", ["--batch", "--yes", "--sign", "--output", `${claim}.sig`, claim]);
    return readFile(`${claim}.sig`);
  };
  assert.equal(checkClaim(await verifyWithKeyring(await sign(digest), keyring, new Date()), digest).digest, digest);
  const other = await verifyWithKeyring(await sign(`sha256:${"0".repeat(64)}`), keyring, new Date());
  assert.throws(() => checkClaim(other, digest), { message: "signature digest does not match" });
});

test("sign-payload's signature verifies with skopeo standalone-verify", async () => {
  const { privateKey, publicKey } = await openpgp.generateKey({ userIDs: [{ name: "syncworker", email: "sign@example.com" }], format: "object" });
  const pub = join(dir, "ours.asc");
  await writeFile(pub, publicKey.armor());
  await tool("gpg", ["--batch", "--import", pub]);
  const sig = join(dir, "ours.sig");
  await writeFile(sig, await signImage({ digest, reference: REFERENCE }, privateKey, new Date()));
  const { stdout } = await tool("skopeo", ["standalone-verify", manifest, REFERENCE, publicKey.getFingerprint().toUpperCase(), sig]);
  assert.equal(stdout.trim(), `Signature verified, digest ${digest}`);
  // containers/image checks the identity too: the same signature does not vouch for another name.
  await assert.rejects(tool("skopeo", ["standalone-verify", manifest, "registry.example/other:1", publicKey.getFingerprint().toUpperCase(), sig]));
});
