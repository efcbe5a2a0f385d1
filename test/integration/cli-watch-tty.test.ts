// `syncworker watch` in a real terminal (tmux): the live area mid-sync shows the overall bar with elapsed time and
// the estimate, and the components waiting on their operators with what they wait for and for how long; finished
// components leave a line above it, under a line naming the release they belong to; an install's operators coming up
// read as a wait. The frame it captures mid-sync is printed as a diagnostic (the README shows one).
import assert from "node:assert/strict";
import { isComplete } from "@syncworker/client";
import { writeReleases } from "../harness/payload-gen.js";
import { startServer, SYNCWORKER, waitForStatus } from "../harness/server.js";
import { openTerminal } from "../harness/tmux.js";
import { tierTests } from "../harness/tiers.js";

const { test } = tierTests("terminal");

// A duration as formatDuration prints it: a slow machine takes a minute or more (`1m02s`).
const DURATION = String.raw`\d+(?:s|m\d{2}s|h\d{2}m)`;

test("syncworker watch on a terminal: one live area with the bar, elapsed, ETA and the waiting components", { timeout: 240_000 }, async (t) => {
  const { a, b } = await writeReleases();
  const server = await startServer(["--operator-delay", "3s"]);
  const terminal = await openTerminal([process.execPath, ...SYNCWORKER, "watch", "--address", server.address, "--until-complete", "1.1.0"]);
  try {
    // Release a first, so the update to release b has an estimate learned from it.
    await server.client.update({ generation: 1, desired: { version: "", image: a, force: false } });
    // The install's operators coming up read as the wait they are, not as upstream's "Unable to apply".
    const install = await terminal.waitFor(
      (screen) => / \| Installing 1\.0\.0: \d+ of \d+ done \(\d+% complete\), waiting for cluster operator/.test(screen),
      60_000,
    );
    assert.doesNotMatch(install, /Unable to apply/);
    assert.match(install, /^── following 1\.0\.0 \(\S+\) ──$/m, "the release followed is named above its lines");
    await waitForStatus(server.client, (s) => isComplete(s, "1.0.0"), 120_000);
    await terminal.waitFor((screen) => screen.includes("Cluster version is 1.0.0"), 60_000);

    await server.client.update({ generation: 2, desired: { version: "", image: b, force: false } });
    await terminal.waitFor((screen) => /^── following 1\.1\.0 \(\S+\) ──$/m.test(screen), 60_000);
    // Run level 00 waits on three operators at once: a frame with several of them, a second or more into the wait.
    const frame = await terminal.waitFor(
      (screen) => (screen.match(/waiting for [1-9]\d*s on clusteroperator\//g) ?? []).length >= 2 && / ETA \d/.test(screen),
      90_000,
    );
    t.diagnostic(`mid-sync frame:\n${frame.trimEnd()}`);
    assert.match(
      frame,
      new RegExp(
        String.raw`^\u2588*\u2591+ \d+% \| \d+\/\d+ \| elapsed ${DURATION} \| ETA ${DURATION} \(from 1 previous update\) \| Working towards 1\.1\.0`,
        "m",
      ),
      "the overall bar",
    );
    assert.match(
      frame,
      new RegExp(String.raw`^ {2}\d+\/[\w-]+ \d+\/\d+ waiting for ${DURATION} on clusteroperator\/[\w-]+ \(ClusterOperator\w+(, attempt \d+)?\)$`, "m"),
      "a waiting component",
    );
    assert.match(frame, new RegExp(String.raw`^done \d+\/[\w-]+ \d+\/\d+ at \+${DURATION}$`, "m"), "finished components above the live area");

    const end = await terminal.waitFor((screen) => screen.includes("Cluster version is 1.1.0"), 120_000);
    assert.match(end, new RegExp(String.raw`100% \| \d+\/\d+ \| elapsed ${DURATION} \| Cluster version is 1\.1\.0`));
    assert.doesNotMatch(end, /waiting for/, "nothing is left in progress");
  } finally {
    await terminal.close();
    assert.equal(await server.stop(), 0, server.stderr());
  }
});
