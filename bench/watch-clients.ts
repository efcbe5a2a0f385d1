// The watcher side of the watch benchmark, in its own process: opens N StatusWatch streams, records
// for every snapshot the delay between its publication (published_at) and its arrival, and prints
// one JSON summary when told to stop (a line on stdin).
import { createInterface } from "node:readline";
import { credentials } from "@grpc/grpc-js";
import { SyncWorkerClient, type SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";

const [address = "", countText = "1000", perChannelText = "100"] = process.argv.slice(2);
const count = Number(countText);
const perChannel = Number(perChannelText);
const delays: number[] = [];
let connected = 0;
const clients: SyncWorkerClient[] = [];
const streams: ReturnType<SyncWorkerClient["statusWatch"]>[] = [];
for (let i = 0; i < count; i++) {
  if (i % perChannel === 0) {
    // A distinct option makes grpc-js open a separate connection for each group of streams.
    clients.push(new SyncWorkerClient(address, credentials.createInsecure(), { "syncworker.bench.channel": i }));
  }
  const stream = clients.at(-1)!.statusWatch({ sinceRevision: 0 });
  let first = true;
  stream.on("data", (response: { status?: SyncWorkerStatus }) => {
    const publishedAt = response.status?.publishedAt?.getTime();
    if (first) {
      first = false;
      if (++connected === count) process.stdout.write("connected\n");
      return; // the initial snapshot was published before the watcher existed
    }
    if (publishedAt !== undefined) delays.push(Date.now() - publishedAt);
  });
  stream.on("error", () => undefined);
  streams.push(stream);
}

createInterface({ input: process.stdin }).once("line", () => {
  for (const stream of streams) stream.cancel();
  for (const client of clients) client.close();
  delays.sort((a, b) => a - b);
  const at = (q: number): number => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] ?? NaN;
  process.stdout.write(`${JSON.stringify({ deliveries: delays.length, p50: at(0.5), p99: at(0.99), max: delays.at(-1) ?? NaN })}\n`);
  process.exit(0);
});
