/**
 * A real OCI registry for tests: Debian's `docker-registry` (the CNCF distribution registry) on a loopback port,
 * with its own config file and filesystem storage in a temporary directory. The `secure` variant serves TLS with
 * the test PKI's server certificate and requires bearer tokens from a token server the harness runs (the
 * distribution token flow: the registry challenges, the client asks the realm with basic credentials, the realm
 * answers a JWT signed with a key whose certificate chains to the registry's `rootcertbundle`).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createSign, randomUUID, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { Agent, request } from "undici";
import { makeTestPki, type TestPki } from "./tls.js";
import { freePort } from "./ports.js";

export interface TestRegistry {
  /** `127.0.0.1:PORT`, the host part of image references. */
  readonly host: string;
  /** The registry's storage root (`docker/registry/v2/…`), for tests that tamper with it. */
  readonly storage: string;
  /** TLS and token variant only: the PKI whose CA the client must trust (`--registry-ca`). */
  readonly pki?: TestPki;
  /** Token variant only: the one user the token server knows. */
  readonly user?: { readonly username: string; readonly password: string };
  /** GET requests for blobs of `repository` answered so far, read from the registry's access log. */
  blobGets(repository: string): number;
  /** Everything the registry wrote (access log on stdout, its log on stderr). */
  log(): string;
  stop(): Promise<void>;
}

const ISSUER = "syncworker-test-issuer";
const SERVICE = "syncworker-test-registry";

/** Starts the token server: basic credentials of `user` get the requested repository actions, anyone else none. */
async function startTokenServer(pki: TestPki, user: { username: string; password: string }): Promise<{ server: Server; realm: string }> {
  const key = await readFile(pki.serverKey, "utf8");
  const x5c = [new X509Certificate(await readFile(pki.serverCert)).raw.toString("base64")];
  const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString("base64url");
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://token");
    const auth = req.headers.authorization ?? "";
    const given = auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString() : undefined;
    if (given !== undefined && given !== `${user.username}:${user.password}`) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ details: "wrong user name or password" }));
      return;
    }
    // Anonymous callers get a token granting nothing, as public registries answer them.
    const [, name, actions] = /^repository:([^:]+):(.+)$/.exec(url.searchParams.get("scope") ?? "") ?? [];
    const access = given !== undefined && name && actions ? [{ type: "repository", name, actions: actions.split(",") }] : [];
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: ISSUER,
      sub: given === undefined ? "" : user.username,
      aud: SERVICE,
      exp: now + 600,
      nbf: now - 10,
      iat: now,
      jti: randomUUID(),
      access,
    };
    const unsigned = `${b64({ typ: "JWT", alg: "RS256", x5c })}.${b64(claims)}`;
    const signature = createSign("RSA-SHA256").update(unsigned).sign(key).toString("base64url");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token: `${unsigned}.${signature}`, expires_in: 600 }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, realm: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token` };
}

/**
 * Starts `docker-registry serve` and waits until it answers `/v2/`. `secure`: TLS with the test PKI and token
 * auth. Stopped by `stop()`, or killed when the test process exits.
 */
export async function startRegistry(opts: { secure?: boolean } = {}): Promise<TestRegistry> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-registry-"));
  const port = await freePort();
  const storage = join(dir, "storage");
  const pki = opts.secure ? await makeTestPki() : undefined;
  const user = opts.secure ? { username: "puller", password: randomUUID() } : undefined;
  const token = pki && user ? await startTokenServer(pki, user) : undefined;
  const config = [
    "version: 0.1",
    "log: {level: info}",
    `storage: {filesystem: {rootdirectory: ${JSON.stringify(storage)}}, delete: {enabled: true}}`,
    "http:",
    `  addr: 127.0.0.1:${port}`,
    ...(pki ? [`  tls: {certificate: ${JSON.stringify(pki.serverCert)}, key: ${JSON.stringify(pki.serverKey)}}`] : []),
    ...(token && pki
      ? [`auth: {token: {realm: ${JSON.stringify(token.realm)}, service: ${SERVICE}, issuer: ${ISSUER}, rootcertbundle: ${JSON.stringify(pki.ca)}}}`]
      : []),
  ].join("\n");
  await writeFile(join(dir, "config.yml"), `${config}\n`);
  const child = spawn("docker-registry", ["serve", join(dir, "config.yml")], { stdio: ["ignore", "pipe", "pipe"] });
  const kill = (): void => void child.kill("SIGKILL");
  process.once("exit", kill);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`docker-registry exited with ${String(code)}: ${output}`);
  });
  const host = `127.0.0.1:${port}`;
  const agent = new Agent({ connect: pki ? { ca: await readFile(pki.ca, "utf8") } : {} });
  const answering = (async (): Promise<void> => {
    for (;;) {
      const ok = await request(`${pki ? "https" : "http"}://${host}/v2/`, { dispatcher: agent }).then(
        async (res) => (await res.body.dump(), true),
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    await Promise.race([answering, exited]);
  } finally {
    await agent.close();
  }
  exited.catch(() => undefined);
  return {
    host,
    storage,
    ...(pki ? { pki } : {}),
    ...(user ? { user } : {}),
    blobGets: (repository) => output.split("\n").filter((line) => line.includes(`"GET /v2/${repository}/blobs/sha256:`) && /" 200 /.test(line)).length,
    log: () => output,
    stop: async () => {
      process.off("exit", kill);
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      if (token) {
        token.server.close();
        await once(token.server, "close");
      }
    },
  };
}

/** A Docker config.json holding `user`'s credentials for `host`, as `--pull-secret` takes it. */
export async function writePullSecret(host: string, user: { username: string; password: string }): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "syncworker-pull-secret-")), "config.json");
  await writeFile(file, JSON.stringify({ auths: { [host]: { auth: Buffer.from(`${user.username}:${user.password}`).toString("base64") } } }));
  return file;
}

/** One entry of a hand-made layer; a test builds hostile ones (escaping names and links, devices). */
export interface LayerEntry {
  readonly name: string;
  readonly type?: "file" | "directory" | "symlink" | "link" | "character-device";
  readonly content?: string;
  readonly linkname?: string;
}

/** A gzip-compressed tar of `entries`, in order, as an OCI layer. */
export async function tarLayer(entries: readonly LayerEntry[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => tar.on("end", resolve).on("error", reject));
  for (const e of entries) {
    const type = e.type ?? "file";
    const header = { name: e.name, type, mode: type === "directory" ? 0o755 : 0o644, ...(e.linkname !== undefined ? { linkname: e.linkname } : {}) };
    if (type === "file") tar.entry(header, e.content ?? "");
    else tar.entry(header);
  }
  tar.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

/** Overwrites the first byte of a stored blob (same size, other content): a registry serving a corrupted layer. */
export async function tamperBlob(registry: TestRegistry, digest: string): Promise<void> {
  const hex = digest.slice("sha256:".length);
  const file = join(registry.storage, "docker/registry/v2/blobs/sha256", hex.slice(0, 2), hex, "data");
  const bytes = await readFile(file);
  bytes[0] = bytes[0]! ^ 0xff;
  await writeFile(file, bytes);
}

/** Removes a stored blob's data: the manifest still names it, the registry cannot serve it. */
export async function loseBlob(registry: TestRegistry, digest: string): Promise<void> {
  const hex = digest.slice("sha256:".length);
  await rm(join(registry.storage, "docker/registry/v2/blobs/sha256", hex.slice(0, 2), hex), { recursive: true });
}
