// `syncworker status` (the summary for people and -o json|yaml for programs) and `watch`'s separator between releases,
// against a real `syncworker serve`, through an install of the first demo release and an update to the second.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { isComplete } from "@syncworker/client";
import { runCli } from "../harness/cli.js";
import { REPO_ROOT, startServer, SYNCWORKER, waitForStatus } from "../harness/server.js";

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const DEMO_2 = join(REPO_ROOT, "examples/payloads/demo-1.1.0");

type Line = { following?: { version: string; image: string }; actual?: { version?: string; image?: string }; revision?: string };

test("status during an install: the operators coming up read as a wait, -o yaml keeps the status as upstream words it", { timeout: 120_000 }, async () => {
  // Operators that take 30 s to come up: the install's wait lasts long enough for commands started on a busy machine.
  const server = await startServer(["--operator-delay", "30s"]);
  try {
    const idle = await runCli(["status", "--address", server.address]);
    assert.equal(idle.code, 0, idle.stderr);
    assert.equal(idle.stdout.split("\n")[0], "Waiting for an update");
    assert.match(idle.stdout, /^State: +Waiting for an update$/m);
    assert.match(idle.stdout, /^History:\n {2}none$/m);

    await server.client.update({ generation: 1, desired: { version: "", image: DEMO_1, force: false } });
    await waitForStatus(server.client, (s) => s.initial && s.failure?.reason === "ClusterOperatorsNotAvailable", 60_000);

    const install = await runCli(["status", "--address", server.address]);
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /^Installing 1\.0\.0: \d+ of 23 done \(\d+% complete\), waiting for cluster operators? [\w, -]+ to become available\n\n/);
    assert.match(install.stdout, /^Current release: none completely applied yet$/m);
    assert.match(install.stdout, new RegExp(`^Desired release: 1\\.0\\.0 \\(${DEMO_1}\\)$`, "m"));
    assert.match(install.stdout, /^State: +Installing, waiting for operators to become available$/m);
    assert.match(install.stdout, /^Progress: +\d+\/23 manifests \(\d+%\)$/m);
    assert.match(
      install.stdout,
      /^Blocked by: +\d+\/demo-\w+ \d+\/\d+ waiting for \d+s on clusteroperator\/demo-\w+ \(ClusterOperatorNotAvailable(, attempt \d+)?\), since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m,
    );
    assert.match(install.stdout, /^Last failure: +none$/m);
    assert.match(install.stdout, /^ {2}Partial +1\.0\.0 +\S+ → … {2}\//m);
    assert.doesNotMatch(install.stdout, /Unable to apply/, "a healthy install reads as one");

    const yaml = await runCli(["status", "-o", "yaml", "--address", server.address]);
    assert.equal(yaml.code, 0, yaml.stderr);
    const raw = parse(yaml.stdout) as { initial: boolean; message: string; conditions: Array<{ type: string; status: string; reason?: string }> };
    assert.equal(raw.initial, true);
    assert.match(raw.message, /^Unable to apply 1\.0\.0: Cluster operators? .* (is|are) not available$/, "the status itself keeps upstream's wording");
    const failing = raw.conditions.find((c) => c.type === "Failing");
    assert.deepEqual([failing?.status, failing?.reason], ["True", "ClusterOperatorsNotAvailable"]);
  } finally {
    assert.equal(await server.stop(), 0, server.stderr());
  }
});

test("watch names each release it follows, and status sums up the update done", { timeout: 120_000 }, async () => {
  const server = await startServer(["--operator-delay", "500ms"]);
  try {
    const child = spawn(process.execPath, [...SYNCWORKER, "watch", "--until-complete", "1.1.0", "--address", server.address], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, "exit");
    // Once the watch has shown its first snapshot, so it follows both releases from their beginning.
    await new Promise<void>((shown) => child.stdout.on("data", (chunk: Buffer) => ((stdout += chunk.toString()), shown())));
    await server.client.update({ generation: 1, desired: { version: "", image: DEMO_1, force: false } });
    await waitForStatus(server.client, (s) => isComplete(s, "1.0.0"), 120_000);
    await server.client.update({ generation: 2, desired: { version: "", image: DEMO_2, force: false } });
    assert.deepEqual(await exited, [0, null], stderr);
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Line);
    const following = lines.flatMap((l, i) => (l.following ? [{ i, ...l.following }] : []));
    // A record without the version (the update started with none; the payload tells it) is followed by one with it.
    assert.deepEqual(
      following.filter((f) => f.version !== "").map((f) => [f.version, f.image]),
      [
        ["1.0.0", DEMO_1],
        ["1.1.0", DEMO_2],
      ],
      "the releases followed, named",
    );
    assert.ok(
      lines.slice(0, following[0]!.i).every((l) => !l.actual?.image),
      "nothing followed before the first record",
    );
    following.forEach((f, n) => {
      const until = following[n + 1]?.i ?? lines.length;
      assert.ok(
        lines.slice(f.i + 1, until).every((l) => l.actual?.image === f.image && (f.version === "" || l.actual.version === f.version)),
        `only ${f.image}'s snapshots after its record`,
      );
    });

    const done = await runCli(["status", "--address", server.address]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /^Cluster version is 1\.1\.0\n/);
    assert.match(done.stdout, new RegExp(`^Current release: 1\\.1\\.0 \\(${DEMO_2}\\)$`, "m"));
    assert.match(done.stdout, /^State: +Applied, reconciling$/m);
    assert.match(done.stdout, /^Paused: +no$/m);
    assert.match(done.stdout, /^History:\n {2}Completed 1\.1\.0 .*\n {2}Completed 1\.0\.0 /m);
    const json = await runCli(["status", "--output", "json", "--address", server.address]);
    assert.equal((JSON.parse(json.stdout) as { actual: { version: string } }).actual.version, "1.1.0");
    const bad = await runCli(["status", "-o", "wide", "--address", server.address]);
    assert.equal(bad.code, 2, "a flag refused: a usage error");
    assert.match(bad.stderr, /argument 'wide' is invalid\. Allowed choices are text, json, yaml/);
  } finally {
    assert.equal(await server.stop(), 0, server.stderr());
  }
});
