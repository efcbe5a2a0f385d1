// `npm run bench -- events`: what `--event-sink` costs a sync and how fast its events arrive. A generated release of
// 30 components is installed by a `serve` process on the embedded cluster three ways, interleaved, in the same run:
// without sinks (the baseline), with a sink that answers at once (the latency from the status an event is made from
// to the sink's receipt), and with a sink that never answers (the sync's duration, and what its queue holds and
// drops, read from /metrics).
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HTTP, type CloudEventV1 } from "cloudevents";
import parsePrometheus from "parse-prometheus-text-format";
import { isComplete } from "@syncworker/client";
import { tempRelease } from "../test/harness/payload-gen.js";
import { startServer, waitForStatus } from "../test/harness/server.js";
import { quantile } from "./stats.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);

type Mode = "none" | "answering" | "stalled";

/** A sink that records when each event arrived, answering 202 or never. */
async function sink(stalled: boolean): Promise<{ url: string; arrivals: { event: CloudEventV1<unknown>; at: number }[]; close(): void }> {
  const arrivals: { event: CloudEventV1<unknown>; at: number }[] = [];
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (stalled) return void held.push(res);
      arrivals.push({ event: HTTP.toEvent({ headers: req.headers, body: Buffer.concat(chunks).toString() }) as CloudEventV1<unknown>, at: Date.now() });
      res.writeHead(202).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    arrivals,
    close: () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function install(release: string, mode: Mode) {
  const target = mode === "none" ? undefined : await sink(mode === "stalled");
  const server = await startServer(["--metrics-listen", "127.0.0.1:0", "--reconcile-interval", "120s", ...(target ? ["--event-sink", target.url] : [])]);
  try {
    const started = Date.now();
    await server.client.update({ generation: 1, desired: { image: release } });
    await waitForStatus(server.client, (s) => isComplete(s) && s.actual?.image === release, 600_000);
    const syncMs = Date.now() - started;
    // The last events (completed, the CDEvent) may still be on their way.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const families = parsePrometheus(await (await fetch(`http://${server.metricsAddress}/metrics`)).text());
    const sample = (name: string): number => (families.find((f) => f.name === name)?.metrics ?? []).reduce((sum, m) => sum + Number(m.value ?? 0), 0);
    return {
      syncMs,
      latenciesMs: (target?.arrivals ?? []).map(({ event, at }) => at - Date.parse(String(event.time))),
      events: target?.arrivals.length ?? 0,
      queued: sample("syncworker_event_queue_length"),
      dropped: sample("syncworker_events_dropped_total"),
    };
  } finally {
    await server.stop();
    target?.close();
  }
}

export async function run(): Promise<void> {
  const release = await tempRelease({ version: "1.0.0", components: 30 });
  const results: Record<Mode, Awaited<ReturnType<typeof install>>[]> = { none: [], answering: [], stalled: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ["none", "answering", "stalled"] as const) {
      const result = await install(release, mode);
      results[mode].push(result);
      console.log(`round ${round + 1} ${mode}: sync ${result.syncMs} ms, ${result.events} events received, ${result.queued} queued, ${result.dropped} dropped`);
    }
  }
  const sync = (mode: Mode): number => median(results[mode].map((r) => r.syncMs));
  const latencies = results.answering.flatMap((r) => r.latenciesMs);
  const answered = results.answering.at(-1);
  const stalled = results.stalled.at(-1);
  console.log(
    `RESULT events sync_ms_no_sink=${sync("none")} sync_ms_answering_sink=${sync("answering")} sync_ms_stalled_sink=${sync("stalled")} ` +
      `events_per_sync=${answered?.events ?? 0} latency_p50_ms=${quantile(latencies, 0.5)} latency_p99_ms=${quantile(latencies, 0.99)} ` +
      `latency_max_ms=${Math.max(...latencies)} stalled_queued=${stalled?.queued ?? 0} stalled_dropped=${stalled?.dropped ?? 0}`,
  );
}
