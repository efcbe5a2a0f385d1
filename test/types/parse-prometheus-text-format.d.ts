// The package ships no types; this covers what the tests read (prom2json-compatible output).
declare module "parse-prometheus-text-format" {
  export interface ParsedSample {
    readonly labels?: Readonly<Record<string, string>>;
    /** Counters and gauges. */
    readonly value?: string;
    /** Histograms. */
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    readonly metrics: readonly ParsedSample[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
