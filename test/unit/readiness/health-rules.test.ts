import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import type { KubeObject } from "../../../src/payload/manifest.js";
import { compileHealthRules, HealthRulesError } from "../../../src/readiness/index.js";

const RULES = `
rules:
  - group: example.com
    current: "status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True')"
  - group: example.com
    kind: Widget
    inProgress: "status.?phase.orValue('') == 'Provisioning'"
    failed: "status.?phase.orValue('') == 'Broken'"
    current: "status.phase == 'Running' && status.observedGeneration == metadata.generation"
`;
const widget = (status?: Record<string, unknown>): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "demo", generation: 2 },
  ...(status ? { status } : {}),
});
const verdict = (obj: KubeObject, kind = "Widget") => {
  const check = compileHealthRules(RULES, "rules.yaml").checkFor("example.com", kind);
  assert.ok(check, `a rule for ${kind}`);
  const result = check(obj);
  return result instanceof UpdateError ? `${result.reason}: ${result.message}` : result === undefined ? "current" : `error: ${result.message}`;
};

test("a kind's rule: inProgress first, then failed, then current; none true is in progress, naming the rule", () => {
  assert.equal(
    verdict(widget({ phase: "Provisioning" })),
    "HealthRuleInProgress: Widget demo/w is in progress by health rule example.com/Widget (rules.yaml rules[1]): inProgress: status.?phase.orValue('') == 'Provisioning'",
  );
  assert.equal(
    verdict(widget({ phase: "Broken" })),
    "HealthRuleFailed: Widget demo/w failed by health rule example.com/Widget (rules.yaml rules[1]): failed: status.?phase.orValue('') == 'Broken'",
  );
  assert.equal(verdict(widget({ phase: "Running", observedGeneration: 2 })), "current");
  assert.match(verdict(widget({ phase: "Running", observedGeneration: 1 })), /^HealthRuleInProgress: .*: current is not yet true: status\.phase == 'Running'/);
});

test("a field the object does not have yet: the wait names the error instead of hanging silently", () => {
  assert.match(verdict(widget()), /^HealthRuleInProgress: Widget demo\/w is in progress by health rule .*: could not evaluate current: No such key: \w+$/);
});

test("a group's rule covers its other kinds; the optional idiom reads an absent status as not ready", () => {
  const gadget = { ...widget(), kind: "Gadget" };
  assert.match(
    verdict(gadget, "Gadget"),
    /^HealthRuleInProgress: Gadget demo\/w is in progress by health rule example\.com \(rules\.yaml rules\[0\]\): current is not yet true/,
  );
  assert.equal(verdict({ ...gadget, status: { conditions: [{ type: "Ready", status: "True" }] } }, "Gadget"), "current");
  assert.equal(compileHealthRules(RULES, "rules.yaml").checkFor("other.io", "Widget"), undefined, "no rule: no check");
});

test("a rules file that cannot be used is refused naming the file, the rule and the field", () => {
  const refused = (text: string, message: RegExp) =>
    assert.throws(
      () => compileHealthRules(text, "r.yaml"),
      (err: unknown) => err instanceof HealthRulesError && message.test(err.message),
    );
  refused("rules: [", /^r\.yaml: not YAML/);
  refused("{}", /^r\.yaml: expected "rules:"/);
  refused("rules: [{kind: Widget, current: 'true'}]", /^r\.yaml: rules\[0\]\.group: required/);
  refused("rules: [{group: x}]", /^r\.yaml: rules\[0\]\.current: required/);
  refused("rules: [{group: x, current: 'status.'}]", /^r\.yaml: rules\[0\]\.current: .*: status\.$/);
  refused("rules: [{group: x, current: 'true', ready: 'true'}]", /^r\.yaml: rules\[0\]: unknown field ready/);
  refused("rules: [{group: x, current: 'true'}, {group: x, current: 'false'}]", /^r\.yaml: rules\[1\]: a second rule for x/);
});

test("a payload's rules under the server's: the server's entry wins for the same key, a kind's entry still beats a group's", () => {
  const server = compileHealthRules(RULES, "rules.yaml");
  const payload = compileHealthRules(
    `rules:
  - group: example.com
    kind: Gadget
    current: "true"
  - group: example.com
    kind: Widget
    current: "false"
  - group: other.io
    current: "true"
`,
    "release-manifests/health-rules",
  );
  const both = server.over(payload);
  const check = (kind: string, group = "example.com") => both.checkFor(group, kind)?.({ ...widget({ phase: "Running", observedGeneration: 2 }), kind });
  assert.equal(check("Widget"), undefined, "the server's Widget rule, not the payload's `false`");
  assert.equal(check("Gadget"), undefined, "the payload's kind rule over the server's group rule");
  assert.equal(check("Thing", "other.io"), undefined, "a group only the payload names");
  const sprocket = check("Sprocket");
  assert.ok(sprocket instanceof UpdateError && sprocket.message.includes("(rules.yaml rules[0])"), "the server's group rule for the rest");
});
