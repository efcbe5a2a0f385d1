/**
 * Health rules for any kind (`--health-rules FILE`): CEL expressions over the live object, per API group or per kind,
 * with Flux's semantics: `inProgress` is asked first, then `failed`, then `current`; none true means in progress; a
 * kind entry overrides its group's entry. The object's top-level fields are variables (`metadata`, `spec`, `status`,
 * absent ones as empty maps) and `self` is the whole object. An expression that reads a field the object does not
 * have fails to evaluate: it counts as false and the wait names the error, so write `status.?phase.orValue('')` or
 * `has(status.phase) && …` for fields that appear later.
 *
 * Evaluated by @marcbachmann/cel-js: zero dependencies, with CEL's optional syntax (`.?field`, `orValue`), which
 * @bufbuild/cel 0.6 does not parse. A rule of three expressions checks an object in about 3 µs
 * (`npm run bench -- health-rules`), next to the milliseconds of the apply it follows.
 */
import { Environment } from "@marcbachmann/cel-js";
import { parse as parseYaml } from "yaml";
import type { KubeObject } from "../payload/manifest.js";
import { UpdateError } from "../core/index.js";
import type { ReadinessResult } from "./checks.js";

const FIELDS = ["current", "inProgress", "failed"] as const;
type Field = (typeof FIELDS)[number];

type Compiled = (context: Record<string, unknown>) => unknown;

interface Rule {
  /** `example.com/Widget` or `example.com` (every kind of the group), and where it was written. */
  readonly name: string;
  readonly expressions: Readonly<Partial<Record<Field, { readonly text: string; readonly run: Compiled }>>>;
}

/** A health rules file that cannot be used; the message names the file, the rule and the field. */
export class HealthRulesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HealthRulesError";
  }
}

const environment = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });

/**
 * Reads the rules of `text` (YAML: `rules:` a list of `{group, kind?, current, inProgress?, failed?}`), compiling every
 * expression; throws a {@link HealthRulesError} naming `file`, the rule's index and the field for anything wrong.
 */
export function compileHealthRules(text: string, file: string): HealthRules {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new HealthRulesError(`${file}: not YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const list = (doc as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) throw new HealthRulesError(`${file}: expected "rules:", a list of {group, kind, current, inProgress, failed}`);
  const rules = new Map<string, Rule>();
  list.forEach((entry: unknown, i) => {
    const at = `${file}: rules[${i}]`;
    if (!entry || typeof entry !== "object") throw new HealthRulesError(`${at}: not a mapping`);
    const { group, kind, ...rest } = entry as Record<string, unknown>;
    if (typeof group !== "string") throw new HealthRulesError(`${at}.group: required, the API group ("" for the core group)`);
    if (kind !== undefined && (typeof kind !== "string" || kind === ""))
      throw new HealthRulesError(`${at}.kind: a kind name, or absent for every kind of the group`);
    const unknown = Object.keys(rest).filter((key) => !(FIELDS as readonly string[]).includes(key));
    if (unknown.length > 0) throw new HealthRulesError(`${at}: unknown field ${unknown.join(", ")} (the fields are group, kind, ${FIELDS.join(", ")})`);
    if (typeof rest["current"] !== "string") throw new HealthRulesError(`${at}.current: required, a CEL expression true when the object is healthy`);
    const expressions: Partial<Record<Field, { text: string; run: Compiled }>> = {};
    for (const field of FIELDS) {
      const source = rest[field];
      if (source === undefined) continue;
      if (typeof source !== "string") throw new HealthRulesError(`${at}.${field}: a CEL expression (a string)`);
      try {
        expressions[field] = { text: source, run: environment.parse(source) as Compiled };
      } catch (err) {
        throw new HealthRulesError(`${at}.${field}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}: ${source}`);
      }
    }
    const key = kind === undefined ? group : `${group}/${kind}`;
    if (rules.has(key)) throw new HealthRulesError(`${at}: a second rule for ${key || "the core group"}`);
    rules.set(key, { name: `${key || "core"} (${file} rules[${i}])`, expressions });
  });
  return new HealthRules(rules);
}

/** The compiled rules: the check for a kind, its own entry over its group's. */
export class HealthRules {
  constructor(private readonly rules: ReadonlyMap<string, Rule>) {}

  get size(): number {
    return this.rules.size;
  }

  /** These rules with `base`'s for the kinds and groups these do not name (a payload's rules under the server's). */
  over(base: HealthRules): HealthRules {
    return new HealthRules(new Map([...base.rules, ...this.rules]));
  }

  /** The readiness check a rule gives `group`/`kind`; undefined when none applies. */
  checkFor(group: string, kind: string): ((obj: KubeObject) => ReadinessResult) | undefined {
    const rule = this.rules.get(`${group}/${kind}`) ?? this.rules.get(group);
    return rule ? (obj) => verdict(rule, obj) : undefined;
  }
}

function verdict(rule: Rule, obj: KubeObject): ReadinessResult {
  const context = { metadata: {}, spec: {}, status: {}, ...obj, self: obj };
  const identity = `${obj.kind ?? ""} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ""}${obj.metadata?.name ?? ""}`;
  const errors: string[] = [];
  const holds = (field: Field): boolean => {
    const expression = rule.expressions[field];
    if (!expression) return false;
    try {
      return expression.run(context) === true;
    } catch (err) {
      errors.push(`${field}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
      return false;
    }
  };
  const waiting = (why: string): UpdateError =>
    new UpdateError({ reason: "HealthRuleInProgress", name: identity, message: `${identity} is in progress by health rule ${rule.name}: ${why}` });
  if (holds("inProgress")) return waiting(`inProgress: ${rule.expressions.inProgress?.text ?? ""}`);
  if (holds("failed")) {
    return new UpdateError({
      reason: "HealthRuleFailed",
      name: identity,
      message: `${identity} failed by health rule ${rule.name}: failed: ${rule.expressions.failed?.text ?? ""}`,
    });
  }
  if (holds("current")) return undefined;
  return waiting(errors.length > 0 ? `could not evaluate ${errors.join("; ")}` : `current is not yet true: ${rule.expressions.current?.text ?? ""}`);
}
