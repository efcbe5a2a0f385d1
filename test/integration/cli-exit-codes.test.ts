// The CLI's exit codes as a script sees them (issue 22; docs/cli-exit-codes.md): the real `syncworker` program run
// against real `serve` processes, each exit path checked for its code and its one line on stderr. 0 done, 1 failed or
// refused, 2 usage, 3 timed out, 4 unreachable. `update` refusing a release and an invalid Update are in
// cli-update-exit.test.ts; serve's listeners in listen.test.ts.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../harness/cli.js";
import { REPO_ROOT, startServer, SYNCWORKER, type ServerProcess } from "../harness/server.js";
import { makeTestPki, READER_TOKEN, WRITER_TOKEN, writeTokenFile, type TestPki } from "../harness/tls.js";
import { skipTier, tierTests } from "../harness/tiers.js";
import { openTerminal } from "../harness/tmux.js";

// Certificates by openssl for the TLS server every test shares; the terminal test also needs tmux.
const { after, before, test } = tierTests("tls");

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

type Run = Awaited<ReturnType<typeof runCli>>;

/** Checks the exit code and that stderr is exactly one line matching `line` (after "syncworker: "); returns it. */
function exits(run: Run, code: number, line: RegExp): string {
  assert.equal(run.code, code, `exit ${code}; stderr: ${run.stderr}`);
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line on stderr: ${run.stderr}`);
  assert.match(lines[0]!, /^syncworker: /);
  assert.match(lines[0]!.slice("syncworker: ".length), line);
  return lines[0]!;
}

let pki: TestPki;
/** Plaintext, no tokens, fast operators. */
let plain: ServerProcess;
/** TLS with tokens; operators that take a minute, so an update does not complete within a short --timeout. */
let secure: ServerProcess;
/** Accepts TCP connections and never answers. */
let silent: Server;
let silentAddress: string;
/** Nothing listens there. */
let refusedAddress: string;

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return `127.0.0.1:${port}`;
}

before(async () => {
  pki = await makeTestPki();
  const tokenFile = await writeTokenFile(pki.dir);
  [plain, secure] = await Promise.all([startServer(), startServer([...pki.serveArgs(false), "--token-file", tokenFile, "--operator-delay", "60s"])]);
  silent = createServer(() => undefined);
  silentAddress = await listening(silent);
  const closed = createServer();
  refusedAddress = await listening(closed);
  await new Promise((resolve) => closed.close(resolve));
});
after(async () => {
  silent.close();
  assert.equal(await plain.stop(), 0, plain.stderr());
  assert.equal(await secure.stop(), 0, secure.stderr());
});

const tls = (): string[] => ["--address", secure.address, "--ca", pki.ca];

test("usage errors exit 2 with one line naming the flag", async () => {
  const runs = await Promise.all([
    runCli(["status", "--bogus"]),
    runCli(["status", "--connect-timeout", "soon"]),
    runCli(["update", "--image", DEMO_1, "--timeout", "1s"]),
    runCli(["watch", "--timeout", "1s"]),
    runCli(["watch", "--until-complete", "--timeout", "forever"]),
    runCli([]),
  ]);
  exits(runs[0], 2, /^unknown option '--bogus' \(see 'syncworker status --help'\)$/);
  exits(runs[1], 2, /^--connect-timeout: "soon" is not a duration like 500ms, 5s or 2m$/);
  exits(runs[2], 2, /^--timeout: applies only with --wait$/);
  exits(runs[3], 2, /^--timeout: applies only with --until-complete$/);
  exits(runs[4], 2, /^--timeout: "forever" is not a duration/);
  assert.equal(runs[5].code, 2, "no command: the help, on stderr");
  assert.match(runs[5].stderr, /^Exit codes \(docs\/cli-exit-codes\.md\):\n {2}0 {2}done/m, "the help lists the exit codes");
});

test("--version, -V and `version` print the client's and the server's version", async () => {
  const [long, short, both, client] = await Promise.all([
    runCli(["--version"]),
    runCli(["-V"]),
    runCli(["version", "--address", plain.address]),
    runCli(["version", "--client", "--address", refusedAddress]),
  ]);
  for (const run of [long, short]) assert.deepEqual([run.code, run.stdout, run.stderr], [0, `${VERSION}\n`, ""]);
  assert.deepEqual([both.code, both.stdout, both.stderr], [0, `Client Version: ${VERSION}\nServer Version: ${VERSION}\n`, ""]);
  assert.deepEqual([client.code, client.stdout, client.stderr], [0, `Client Version: ${VERSION}\n`, ""], "--client contacts no server");
  assert.equal(await (await fetch(`http://${plain.adminAddress}/readyz`)).text(), `ok: leader, version ${VERSION}`);
});

test("an unreachable server: exit 4 with one line naming the address, what was tried and why, for every client command", { timeout: 120_000 }, async () => {
  const refused = new RegExp(
    `^cannot reach syncworker at ${refusedAddress} \\(gRPC in plaintext\\): connection refused: nothing listens there \\(ECONNREFUSED\\)$`,
  );
  const commands = [
    ["status"],
    ["watch"],
    ["watch", "--until-complete"],
    // --version after the command is update's own flag, not the program's.
    ["update", "--image", DEMO_1, "--version", "9.9.9", "--wait"],
    ["diff", "--image", DEMO_1],
    ["notify"],
    ["pause"],
    ["resume"],
    ["version"],
  ];
  const runs = await Promise.all(commands.map((args) => runCli([...args, "--address", refusedAddress])));
  runs.forEach((run, i) => {
    exits(run, 4, refused);
    assert.doesNotMatch(run.stderr, /Resolution note/, commands[i]!.join(" "));
  });
  assert.equal(runs[8]!.stdout, `Client Version: ${VERSION}\n`, "version prints the client's before it fails");

  const [silentStatus, silentWatch, admin] = await Promise.all([
    runCli(["status", "--address", silentAddress, "--connect-timeout", "1s"]),
    runCli(["watch", "--address", silentAddress, "--connect-timeout", "1s"]),
    runCli(["status", "--address", plain.adminAddress]),
  ]);
  for (const run of [silentStatus, silentWatch])
    exits(run, 4, new RegExp(`^cannot reach syncworker at ${silentAddress} \\(gRPC in plaintext\\): no connection within --connect-timeout 1s$`));
  assert.equal(silentWatch.stdout, "", "piped, nothing before the failure");
  exits(admin, 4, /\): the server speaks neither TLS nor HTTP\/2: is this the gRPC address \(not the admin or metrics one\)\?$/);
});

test(
  "watch on a terminal against a server that is not there ends with exit 4 instead of an empty bar",
  { timeout: 60_000, skip: skipTier("terminal") },
  async () => {
    const command = [process.execPath, ...SYNCWORKER, "watch", "--address", refusedAddress].map((a) => `'${a}'`).join(" ");
    const terminal = await openTerminal(["sh", "-c", `${command}; echo "exit $?"`]);
    try {
      const screen = await terminal.waitFor((s) => /^exit \d+$/m.test(s), 50_000);
      assert.match(screen, /^syncworker: cannot reach syncworker at .*\(ECONNREFUSED\)\s*\nexit 4$/m);
      assert.doesNotMatch(screen, /░|%/, "no progress bar");
    } finally {
      await terminal.close();
    }
  },
);

test(
  "TLS on one side only, an untrusted certificate or a wrong name: exit 4 saying so; TLS to an IP address prints no Node warning",
  { timeout: 60_000 },
  async () => {
    const [toTls, toPlain, untrusted, wrongName, ok] = await Promise.all([
      runCli(["status", "--address", secure.address]),
      runCli(["status", "--address", plain.address, "--ca", pki.ca]),
      runCli(["status", "--address", secure.address, "--ca", join(pki.dir, "other-ca.crt")]),
      runCli(["status", ...tls(), "--server-name", "wrong.test"]),
      runCli(["version", ...tls(), "--token", READER_TOKEN]),
    ]);
    exits(
      toTls,
      4,
      new RegExp(
        `^cannot reach syncworker at ${secure.address} \\(gRPC in plaintext\\): the server speaks TLS; connect with --tls, or --ca <file> when its certificate is from a private CA$`,
      ),
    );
    exits(
      toPlain,
      4,
      new RegExp(
        `^cannot reach syncworker at ${plain.address} \\(gRPC over TLS\\): the server speaks plaintext, not TLS; connect without --tls, --ca, --cert and --server-name$`,
      ),
    );
    exits(
      untrusted,
      4,
      /\(gRPC over TLS\): the server's certificate is not trusted: no CA trusted here signed it; pass the one that did with --ca \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
    );
    exits(wrongName, 4, /\(gRPC over TLS\): the server's certificate does not name wrong\.test \(.*\); see --server-name$/);
    assert.deepEqual([ok.code, ok.stderr], [0, ""], "no DEP0123 DeprecationWarning for the IP address");
    assert.match(ok.stdout, new RegExp(`^Server Version: ${VERSION}$`, "m"));
  },
);

test("calls the server refuses exit 1 with its code and message on one line", { timeout: 60_000 }, async () => {
  const [reader, anonymous, notPaused] = await Promise.all([
    runCli(["update", ...tls(), "--image", DEMO_1, "--token", READER_TOKEN]),
    runCli(["update", ...tls(), "--image", DEMO_1], { SYNCWORKER_TOKEN: "" }),
    runCli(["resume", "--address", plain.address]),
  ]);
  exits(reader, 1, /^PERMISSION_DENIED: "bob" may not call Update: it needs the writer role/);
  exits(anonymous, 1, /^UNAUTHENTICATED: Update needs a bearer token/);
  exits(notPaused, 1, /^FAILED_PRECONDITION: the update is not paused/);
});

let generation = 0;

test("update --wait and watch --until-complete: 0 once complete, 1 when the release is not taken, 3 after --timeout", { timeout: 180_000 }, async () => {
  const update = (...args: string[]) => runCli(["update", "--address", plain.address, "--generation", String(++generation), ...args]);
  const watch = (...args: string[]) => runCli(["watch", "--address", plain.address, ...args]);

  const done = await update("--image", DEMO_1, "--wait", "--timeout", "150s");
  assert.deepEqual([done.code, done.stderr], [0, ""]);
  const final = JSON.parse(done.stdout) as { completed?: number; actual?: { version?: string } };
  assert.ok((final.completed ?? 0) >= 1 && final.actual?.version === "1.0.0", `the final status is printed: ${done.stdout.slice(0, 500)}`);
  const watched = await watch("--until-complete", "--timeout", "60s");
  assert.deepEqual([watched.code, watched.stderr], [0, ""]);

  exits(
    await watch("--until-complete", "9.9.9", "--timeout", "1s"),
    3,
    /^timed out after --timeout 1s waiting for 9\.9\.9 to complete: Cluster version is 1\.0\.0$/,
  );

  const loadFailure = /^the update was not taken: UpdatePayloadRetrievalFailed at RetrievePayload: .*\/nonexistent\/payload/;
  const failed = await update("--image", "/nonexistent/payload", "--wait");
  exits(failed, 1, loadFailure);
  assert.match(failed.stdout, /"loadPayloadStatus"/, "the status is printed all the same");
  // The watch that never ended after a failed load.
  exits(await watch("--until-complete", "--timeout", "60s"), 1, loadFailure);

  const slow = await runCli(["update", ...tls(), "--token", WRITER_TOKEN, "--generation", "1", "--image", DEMO_1, "--wait", "--timeout", "2s"]);
  exits(slow, 3, /^timed out after --timeout 2s waiting for 1\.0\.0 to complete: /);
  assert.match(slow.stdout, /"actual"/, "where the release stood is printed");
});

test("watch stopped by Ctrl-C exits 130, never 0", { timeout: 60_000 }, async () => {
  // Without --until-complete: the shared server may hold a failed load from an earlier test, which ends a wait at once.
  for (const extra of [[] as string[]]) {
    const child = spawn(process.execPath, [...SYNCWORKER, "watch", "--address", plain.address, ...extra], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, "exit");
    // Interrupted once it follows the stream: its first snapshot is out.
    await once(child.stdout, "data");
    child.kill("SIGINT");
    assert.deepEqual(await exited, [130, null], `watch ${extra.join(" ")}: ${stderr}`);
    assert.equal(stderr, "", "nothing to report: the user stopped it");
  }
});

test("diff keeps 0 and 1 for no changes and changes: its failures exit 2, an unreachable server 4", { timeout: 60_000 }, async () => {
  const [failed, unreachable] = await Promise.all([
    runCli(["diff", "--address", plain.address, "--image", "/nonexistent/payload"]),
    runCli(["diff", "--address", silentAddress, "--connect-timeout", "1s", "--image", DEMO_1]),
  ]);
  exits(failed, 2, /nonexistent\/payload/);
  exits(unreachable, 4, /no connection within --connect-timeout 1s$/);
});
