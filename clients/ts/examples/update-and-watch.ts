// Updates a syncworker to a payload and watches until the sync completes; the last line is `completed N/N`.
//   npx tsx examples/update-and-watch.ts --address 127.0.0.1:50051 --image /abs/payload --version 1.0.0
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { isComplete, SyncWorkerClient, SyncWorkerError } from "@syncworker/client";

const { values } = parseArgs({
  options: {
    address: { type: "string", default: "127.0.0.1:50051" },
    image: { type: "string" },
    version: { type: "string", default: "" },
    timeout: { type: "string", default: "300" },
  },
});
if (!values.image) {
  console.error("usage: update-and-watch --address HOST:PORT --image PAYLOAD_DIR [--version V] [--timeout SECONDS]");
  process.exit(2);
}

const client = new SyncWorkerClient(values.address);
// One signal bounds the whole run; Ctrl-C aborts it too.
const controller = new AbortController();
process.once("SIGINT", () => controller.abort());
const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(Number(values.timeout) * 1000)]);
try {
  // The server resolves the payload path itself, so send it absolute.
  const accepted = await client.update({ desired: { image: resolve(values.image), version: values.version } }, { signal });
  console.log(`update accepted at revision ${accepted.revision}`);
  for await (const status of client.watchStatus({ signal })) {
    if (isComplete(status, values.version)) {
      console.log(`completed ${status.done}/${status.total}`);
      break;
    }
    console.log(`revision ${status.revision}: ${status.message}`);
  }
} catch (err) {
  const error = SyncWorkerError.from(err);
  console.error(`update-and-watch: ${error.message}`);
  process.exitCode = 1;
} finally {
  client.close();
}
