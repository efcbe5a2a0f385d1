/**
 * Named risks: each blocking check an Update can pass by accepting it by name (`accept_risks`), instead of `force`,
 * which accepts every risk. The names are part of the API: refusals and precondition results carry them.
 */
export const RISK_NAMES = ["ClusterVersionUpgradeable", "Rollback", "GiantHop", "ImageVerification", "BlastRadius", "PlanDigest"] as const;
export type RiskName = (typeof RISK_NAMES)[number];

export function isRiskName(name: string): name is RiskName {
  return (RISK_NAMES as readonly string[]).includes(name);
}

/** What an Update accepts: every risk when forced, else the named ones. */
export interface RiskAcceptance {
  readonly force: boolean;
  readonly named: readonly RiskName[];
}

export const NO_RISKS: RiskAcceptance = { force: false, named: [] };

/** Whether `risk` is accepted; a check with no name (a custom precondition) is accepted only by force. */
export function accepts(acceptance: RiskAcceptance, risk: RiskName | undefined): boolean {
  return acceptance.force || (risk !== undefined && acceptance.named.includes(risk));
}

/** The closing words of a refusal that names its risks: how to accept them. */
export function acceptHint(risks: readonly RiskName[]): string {
  const names = [...new Set(risks)];
  return `to apply it anyway, accept the risk${names.length > 1 ? "s" : ""} ${names.join(", ")} (accept_risks; --accept-risk in the CLI) or force the update (every risk)`;
}
