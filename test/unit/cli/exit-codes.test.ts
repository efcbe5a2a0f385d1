// The CLI's exit-code scheme (src/cli/exit-codes.ts) and how a wait for a release ends (src/cli/wait.ts): which
// failure exits with which code and which one line it prints. The integration tests run the same paths end to end
// (test/integration/cli-exit-codes.test.ts); here every branch is checked from fixed inputs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CommanderError, InvalidArgumentError } from "commander";
import { Code, SyncWorkerError, SyncWorkerStatus } from "@syncworker/client";
import { LoadPayloadStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import { ValueError } from "../../../src/config/index.js";
import { CliError, ExitCode, exitCodeOf, failureLine } from "../../../src/cli/exit-codes.js";
import { endWait, verdict, type Timeout } from "../../../src/cli/wait.js";

describe("exitCodeOf and failureLine", () => {
  const cases: Array<{ name: string; err: unknown; code: ExitCode; line: string }> = [
    { name: "a command's own failure keeps its code", err: new CliError(ExitCode.Unreachable, "cannot reach"), code: 4, line: "cannot reach" },
    { name: "help and --version exit 0 and print nothing more", err: new CommanderError(0, "commander.version", "0.1.0"), code: 0, line: "" },
    { name: "a missing command: commander printed the help", err: new CommanderError(1, "commander.help", "(outputHelp)"), code: 2, line: "" },
    {
      name: "an unknown flag is a usage error with a hint",
      err: new CommanderError(1, "commander.unknownOption", "error: unknown option '--bogus'"),
      code: 2,
      line: "unknown option '--bogus' (see 'syncworker status --help')",
    },
    { name: "a malformed value commander parsed", err: new InvalidArgumentError("x"), code: 2, line: "x (see 'syncworker status --help')" },
    { name: "a flag value refused by its check", err: new ValueError("timeout", '"x" is not a duration'), code: 2, line: '--timeout: "x" is not a duration' },
    {
      name: "a call's deadline is a timeout",
      err: new SyncWorkerError(Code.DeadlineExceeded, "Deadline exceeded after 30s"),
      code: 3,
      line: "DEADLINE_EXCEEDED: Deadline exceeded after 30s",
    },
    {
      name: "a refused call fails, named as grpcurl names it",
      err: new SyncWorkerError(Code.PermissionDenied, '"bob" may not'),
      code: 1,
      line: 'PERMISSION_DENIED: "bob" may not',
    },
    {
      name: "a server's UNAVAILABLE (not the leader) is a refusal, not an unreachable server",
      err: new SyncWorkerError(Code.Unavailable, "not the leader"),
      code: 1,
      line: "UNAVAILABLE: not the leader",
    },
    { name: "a multi-line message is printed on one line", err: new Error("first\n  second"), code: 1, line: "first; second" },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      assert.equal(exitCodeOf(tc.err), tc.code);
      assert.equal(failureLine(tc.err, "status"), tc.line);
    });
  }
});

describe("a wait for a release", () => {
  const status = (s: Partial<SyncWorkerStatus>): SyncWorkerStatus => ({ ...SyncWorkerStatus.fromPartial({}), ...s });
  const release = (version: string, image = `/payloads/${version}`) => ({ version, image, url: "", channels: [] });
  const complete = status({ actual: release("1.1.0"), completed: 1, done: 10, total: 10, message: "Cluster version is 1.1.0" });
  const applying = status({ actual: release("1.1.0"), done: 3, total: 10, message: "Working towards 1.1.0: 3 of 10 done (30% complete)" });
  const notLoaded = status({
    actual: release("1.0.0"),
    completed: 1,
    done: 10,
    total: 10,
    loadPayloadStatus: LoadPayloadStatus.fromPartial({
      step: "RetrievePayload",
      failure: { reason: "UpdatePayloadRetrievalFailed", message: "stat /x:\nno such file" },
    }),
  });
  const timedOut = (): Timeout => {
    const c = new AbortController();
    c.abort();
    return { text: "10s", signal: c.signal };
  };

  test("verdict: complete for the version or image waited for, a failure when the release is not taken, else undecided", () => {
    assert.equal(verdict(complete, { version: "" }), "complete");
    assert.equal(verdict(complete, { version: "1.1.0", image: "/payloads/1.1.0" }), "complete");
    assert.equal(verdict(complete, { version: "1.1.0", image: "/payloads/other" }), undefined, "another image of the same version");
    assert.equal(verdict(complete, { version: "1.2.0" }), undefined);
    assert.equal(verdict(applying, { version: "" }), undefined);
    assert.deepEqual(verdict(notLoaded, { version: "" }), {
      failed: "the update was not taken: UpdatePayloadRetrievalFailed at RetrievePayload: stat /x:; no such file",
    });
  });

  test("endWait: returns when complete or interrupted, exit 1 when not taken, exit 3 naming where it stood at the timeout", () => {
    assert.doesNotThrow(() => endWait(complete, { version: "" }, timedOut()), "complete wins over a timeout that fired after");
    assert.doesNotThrow(() => endWait(applying, { version: "" }, undefined), "interrupted (SIGINT): no timeout fired");
    assert.throws(
      () => endWait(notLoaded, { version: "" }, undefined),
      (err) => err instanceof CliError && err.exitCode === 1 && /^the update was not taken: UpdatePayloadRetrievalFailed/.test(err.message),
    );
    assert.throws(
      () => endWait(applying, { version: "1.1.0" }, timedOut()),
      (err) =>
        err instanceof CliError &&
        err.exitCode === 3 &&
        err.message === "timed out after --timeout 10s waiting for 1.1.0 to complete: Working towards 1.1.0: 3 of 10 done (30% complete)",
    );
    const failing = { ...applying, failure: { reason: "ClusterOperatorNotAvailable", message: "operator a is not available", effect: 0, names: [] } };
    assert.throws(
      () => endWait(failing, { version: "" }, timedOut()),
      (err) => err instanceof CliError && /: Working towards 1\.1\.0: .*; failing: ClusterOperatorNotAvailable: operator a is not available$/.test(err.message),
    );
    assert.throws(
      () => endWait(undefined, { version: "" }, timedOut()),
      (err) => err instanceof CliError && err.exitCode === 3 && /waiting for the release to complete: no status received$/.test(err.message),
    );
  });
});
