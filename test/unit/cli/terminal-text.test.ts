import assert from "node:assert/strict";
import { test } from "node:test";
import { terminalSafe } from "../../../src/cli/terminal-text.js";

test("terminalSafe writes every C0 and C1 control as a visible escape; layout is kept only when asked", () => {
  const hostile = "img\u001b]0;pwned\u0007 \u009b2J\u001b[31mred\u007f\r";
  const safe = terminalSafe(hostile);
  assert.equal(safe, "img\\u001b]0;pwned\\u0007 \\u009b2J\\u001b[31mred\\u007f\\u000d");
  assert.doesNotMatch(safe, /[\u0000-\u001f\u007f-\u009f]/);
  assert.equal(terminalSafe("a\nb\tc"), "a\\u000ab\\u0009c");
  assert.equal(terminalSafe("a\nb\tc\u001b", true), "a\nb\tc\\u001b");
  assert.equal(terminalSafe("plain text, ünïcödé ✓"), "plain text, ünïcödé ✓");
  // Inside JSON the escapes stay valid JSON and decode back to what the server sent.
  const json = terminalSafe(JSON.stringify({ message: "x\u009by" }));
  assert.equal((JSON.parse(json) as { message: string }).message, "x\u009by");
});
