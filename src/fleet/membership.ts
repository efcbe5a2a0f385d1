/** Which members a rollout takes, and which stage each one goes in. */
import type { LabelSelector, StageSpec } from "./resources.js";

/** Kubernetes' label selector semantics: every matchLabels pair and every expression must hold; empty matches all. */
export function matchesSelector(labels: Readonly<Record<string, string>>, selector: LabelSelector): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const value = labels[key];
    const holds =
      operator === "In"
        ? value !== undefined && values.includes(value)
        : operator === "NotIn"
          ? value === undefined || !values.includes(value)
          : operator === "Exists"
            ? value !== undefined
            : value === undefined;
    if (!holds) return false;
  }
  return true;
}

export interface Candidate {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * Each member's stage. Stages take, in order, from the members no earlier stage took (ordered by name, so the
 * assignment is the same on every replica): a selector takes those it matches, a count the next ones, a percentage
 * that share of all selected members rounded up, and a stage with none of them takes the rest. Members no stage takes
 * are not part of the rollout.
 */
export function assignStages(stages: readonly StageSpec[], candidates: readonly Candidate[]): Map<string, string> {
  const remaining = [...candidates].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const total = remaining.length;
  const assigned = new Map<string, string>();
  for (const stage of stages) {
    let taken: Candidate[];
    if (stage.selector) taken = remaining.filter((m) => matchesSelector(m.labels, stage.selector ?? {}));
    else if (stage.count !== undefined) taken = remaining.slice(0, stage.count);
    else if (stage.percent !== undefined) taken = remaining.slice(0, Math.ceil((stage.percent * total) / 100));
    else taken = [...remaining];
    for (const member of taken) {
      assigned.set(member.name, stage.name);
      remaining.splice(remaining.indexOf(member), 1);
    }
  }
  return assigned;
}
