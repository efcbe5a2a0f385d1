/**
 * The `-o json|yaml` forms of the commands, for programs. JSON is indented as `kubectl -o json` prints it; YAML never
 * folds long strings (a failure message stays one scalar a reader can grep).
 */
import { stringify } from "yaml";

export type DataFormat = "json" | "yaml";

/** `value` as one JSON or YAML document, ending in a newline. */
export function document(value: unknown, format: DataFormat): string {
  return format === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value, { lineWidth: 0 });
}

/** `values` as a YAML stream, each document after `---` (what `kubectl apply -f -` reads). */
export function yamlStream(values: readonly unknown[]): string {
  return values.map((v) => `---\n${document(v, "yaml")}`).join("");
}
