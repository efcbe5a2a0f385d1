// `npm run bench -- NAME`: runs one benchmark; its last line is `RESULT NAME key=value …`.
const benches: Record<string, () => Promise<void>> = {
  watch: async () => (await import("./watch.js")).run(),
  graph: async () => (await import("./graph.js")).run(),
  tracing: async () => (await import("./tracing.js")).run(),
  apply: async () => (await import("./apply.js")).run(),
  "payload-load": async () => (await import("./payload-load.js")).run(),
  pull: async () => (await import("./pull.js")).run(),
  "snapshot-size": async () => (await import("./snapshot-size.js")).run(),
  memory: async () => (await import("./memory.js")).run(),
  "health-rules": async () => (await import("./health-rules.js")).run(),
  events: async () => (await import("./events.js")).run(),
  fleet: async () => (await import("./fleet.js")).run(),
};

const name = process.argv[2] ?? "";
const bench = benches[name];
if (!bench) {
  console.error(`unknown benchmark "${name}"; available: ${Object.keys(benches).join(", ")}`);
  process.exit(2);
}
await bench();
