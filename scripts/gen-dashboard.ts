/**
 * Writes deploy/grafana-dashboard.yaml (or the file named as the one argument): the Grafana dashboard of
 * scripts/grafana-dashboard.ts in a ConfigMap, its firing-alerts panels matching the alerts of
 * deploy/prometheusrule.yaml. The same input gives the same bytes; scripts/check-gen.sh compares the shipped file
 * with a fresh one.
 *
 *   node --import tsx scripts/gen-dashboard.ts [OUT]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { alertNames, dashboardConfigMap, syncworkerDashboard } from "./grafana-dashboard.js";

const root = join(import.meta.dirname, "..");
const out = resolve(process.argv[2] ?? join(root, "deploy/grafana-dashboard.yaml"));
const alerts = alertNames(readFileSync(join(root, "deploy/prometheusrule.yaml"), "utf8"));
writeFileSync(out, dashboardConfigMap(syncworkerDashboard(alerts)));
