import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../harness/server.js";
import { parseSkipTiers, tierSkipReason, TIERS } from "../harness/tiers.js";

test("SYNCWORKER_SKIP_TIERS is a comma-separated list; blanks and empty entries are dropped", () => {
  assert.deepEqual([...parseSkipTiers(undefined)], []);
  assert.deepEqual([...parseSkipTiers("")], []);
  assert.deepEqual([...parseSkipTiers(" kube, jaeger,,tls ")], ["kube", "jaeger", "tls"]);
});

for (const tc of [
  { name: "nothing opted out", out: "", needs: ["kube", "tls"] as const, want: false },
  { name: "another tier opted out", out: "jaeger", needs: ["kube", "tls"] as const, want: false },
  { name: "one needed tier opted out", out: "jaeger,tls", needs: ["kube", "tls"] as const, want: "tier tls opted out (SYNCWORKER_SKIP_TIERS)" },
  {
    name: "two needed tiers opted out, in the order the test names them",
    out: "tls,kube",
    needs: ["kube", "tls"] as const,
    want: "tiers kube, tls opted out (SYNCWORKER_SKIP_TIERS)",
  },
]) {
  test(`skip reason: ${tc.name}`, () => assert.equal(tierSkipReason(parseSkipTiers(tc.out), tc.needs), tc.want));
}

test("the tiers are scripts/setup.sh's, in its order", async () => {
  const line = (await readFile(join(REPO_ROOT, "scripts/setup.sh"), "utf8")).match(/^tiers=\((.*)\)$/m);
  assert.ok(line, "setup.sh lists its tiers in tiers=(…)");
  assert.deepEqual(line[1]!.split(" "), [...TIERS]);
});
