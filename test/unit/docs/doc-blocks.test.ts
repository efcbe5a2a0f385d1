import assert from "node:assert/strict";
import { test } from "node:test";
import { missingLines, parseBlocks, parseConsole } from "../../harness/doc-blocks.js";

const fence = "```";

const cases: { name: string; text: string; problems: readonly string[] }[] = [
  { name: "an unmarked sh block", text: `Run:\n\n${fence}sh\nnpx syncworker status\n${fence}\n`, problems: ["a sh block without a docs-test marker"] },
  { name: "an unmarked console block", text: `${fence}console\n$ ls\n${fence}\n`, problems: ["a console block without a docs-test marker"] },
  { name: "a block without a language", text: `${fence}\nnpx syncworker status\n${fence}\n`, problems: ["a fenced block without a language"] },
  { name: "a skip without a reason", text: `<!-- docs-test: skip -->\n${fence}sh\nls\n${fence}\n`, problems: ["docs-test: skip needs a reason"] },
  { name: "an unknown option", text: `<!-- docs-test: run fast -->\n${fence}sh\nls\n${fence}\n`, problems: ['docs-test: unknown run option "fast"'] },
  { name: "an unknown tier", text: `<!-- docs-test: run tier=registry,nope -->\n${fence}sh\nls\n${fence}\n`, problems: ['docs-test: "nope" is not a tier'] },
  { name: "a marker on a yaml block", text: `<!-- docs-test: run -->\n${fence}yaml\na: 1\n${fence}\n`, problems: ["a docs-test marker on a yaml block"] },
  { name: "a marked block, blank lines between", text: `<!-- docs-test: run -->\n\n${fence}sh\nls\n${fence}\n`, problems: [] },
  { name: "a text block needs no marker", text: `${fence}text\n$ not a command\n${fence}\n`, problems: [] },
];

for (const tc of cases) {
  test(`parseBlocks: ${tc.name}`, () => {
    const problems = parseBlocks("x.md", tc.text).flatMap((b) => b.problems);
    assert.equal(problems.length, tc.problems.length, problems.join("\n"));
    tc.problems.forEach((p, i) => assert.ok(problems[i]?.startsWith(p), `${problems[i]} starts with ${p}`));
  });
}

test("parseBlocks: the run options, a server's arguments last", () => {
  const [block] = parseBlocks(
    "x.md",
    `<!-- docs-test: run in-checkout with-registry tier=registry,signatures with-server: --operator-delay 3s -->\n${fence}sh\nls\n${fence}\n`,
  );
  assert.deepEqual(block?.marker, {
    kind: "run",
    serverArgs: ["--operator-delay", "3s"],
    inCheckout: true,
    outputBelow: false,
    withRegistry: true,
    tiers: ["registry", "signatures"],
  });
  assert.equal(block?.line, 2);
});

test("parseConsole: commands, continuations and their shown output", () => {
  assert.deepEqual(parseConsole("$ a \\\n  --b\nout 1\n\nout 2\n$ echo $?\n1"), [
    { command: "a \n  --b", expected: ["out 1", "out 2"] },
    { command: "echo $?", expected: ["1"] },
  ]);
  assert.throws(() => parseConsole("output first\n$ a"), /starts with output/);
});

test("missingLines: in order, … as a wildcard, other lines between", () => {
  const actual = "start\nPlan: 1 to create (release 1.1.0 file:///tmp/x)\nnoise\nPlan digest: sha256:abc\n";
  assert.equal(missingLines(["Plan: 1 to create (release 1.1.0 file://…)", "…", "Plan digest: sha256:…"], actual), undefined);
  assert.equal(missingLines(["Plan digest: sha256:…", "Plan: 1 to create …"], actual), "Plan: 1 to create …");
  assert.equal(missingLines(["Plan: 2 to create …"], actual), "Plan: 2 to create …");
  assert.equal(missingLines(["a.c (x)"], "abc (x)"), "a.c (x)");
});
