export * from "./checks.js";
export { compileHealthRules, HealthRules, HealthRulesError } from "./health-rules.js";
