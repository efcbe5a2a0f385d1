import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./server.js";

/** The PEM files of test/harness/tls-pki.sh, by role; `pem` reads one. */
export interface TestPki {
  readonly dir: string;
  /** Signs the server's certificate and the trusted client's. */
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A client certificate from an unrelated CA. */
  readonly otherCert: string;
  readonly otherKey: string;
  /** `--tls-cert … --tls-key …` for `serve`, plus `--client-ca` when `mtls`. */
  serveArgs(mtls: boolean): string[];
  pem(file: string): Promise<Buffer>;
}

/** Certificates by openssl in a fresh temporary directory (the script the Go and Python suites run too). */
export async function makeTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-pki-"));
  await promisify(execFile)("sh", [join(REPO_ROOT, "test/harness/tls-pki.sh"), dir]);
  const at = (name: string): string => join(dir, name);
  return {
    dir,
    ca: at("ca.crt"),
    serverCert: at("server.crt"),
    serverKey: at("server.key"),
    clientCert: at("client.crt"),
    clientKey: at("client.key"),
    otherCert: at("other.crt"),
    otherKey: at("other.key"),
    serveArgs: (mtls) => ["--tls-cert", at("server.crt"), "--tls-key", at("server.key"), ...(mtls ? ["--client-ca", at("ca.crt")] : [])],
    pem: (file) => readFile(file),
  };
}

/** Tokens every suite uses: a writer and a reader. */
export const WRITER_TOKEN = "writer-token-0123456789";
export const READER_TOKEN = "reader-token-0123456789";

/** A `--token-file` in `dir` with {@link WRITER_TOKEN} (alice, writer) and {@link READER_TOKEN} (bob, reader). */
export async function writeTokenFile(dir: string): Promise<string> {
  const file = join(dir, "tokens.csv");
  await writeFile(file, `# token,user,role\n${WRITER_TOKEN},alice,writer\n${READER_TOKEN},bob,reader\n`);
  return file;
}
