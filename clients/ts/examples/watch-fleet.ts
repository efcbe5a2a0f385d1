// Watches a rollout on the fleet's hub: one line per member view, and once the rollout is done a last line
// `rollout NAME PHASE: S/N succeeded`; exits 0 when it completed, 1 when halted or cancelled, 2 when there is no such rollout.
//   npx tsx examples/watch-fleet.ts --address 127.0.0.1:50052 --rollout ocp-4-16-3
import { parseArgs } from "node:util";
import { Code, FleetClient, MemberState, SyncWorkerError, type RolloutView } from "@syncworker/client";

const { values } = parseArgs({
  options: {
    address: { type: "string", default: "127.0.0.1:50052" },
    rollout: { type: "string" },
    namespace: { type: "string", default: "" },
    timeout: { type: "string", default: "300" },
  },
});
if (!values.rollout) {
  console.error("usage: watch-fleet --address HOST:PORT --rollout NAME [--namespace NS] [--timeout SECONDS]");
  process.exit(2);
}

// The phases a rollout ends in, and the exit code of each.
const FINAL: ReadonlyMap<string, number> = new Map([
  ["Completed", 0],
  ["Halted", 1],
  ["Cancelled", 1],
]);

const fleet = new FleetClient(values.address);
// One signal bounds the whole run; Ctrl-C aborts it too. (A timer of its own, not AbortSignal.any with
// AbortSignal.timeout: Node 20 can garbage-collect that timeout before it fires, and a quiet watch then never ends.)
const controller = new AbortController();
process.once("SIGINT", () => controller.abort());
const timer = setTimeout(() => controller.abort(new DOMException(`no end within ${values.timeout}s`, "TimeoutError")), Number(values.timeout) * 1000);
const signal = controller.signal;
try {
  let rollout: RolloutView | undefined;
  // The picture is complete once `synced` came: from then on, the rollout's latest view says whether it is done.
  let synced = false;
  for await (const event of fleet.watchFleet({ rollout: values.rollout, namespace: values.namespace, signal })) {
    if (event.rollout) rollout = event.rollout;
    if (event.synced) synced = true;
    if (event.member) {
      const m = event.member;
      const state = (MemberState[m.state] ?? String(m.state)).replace(/^MEMBER_STATE_/, "").toLowerCase();
      console.log(`${m.member} ${m.stage} ${state} ${m.done}/${m.total} ${m.blocker}`.trimEnd());
    } else if (synced && rollout && FINAL.has(rollout.phase)) {
      console.log(`rollout ${rollout.name} ${rollout.phase}: ${rollout.counts?.succeeded ?? 0}/${rollout.counts?.total ?? 0} succeeded`);
      process.exitCode = FINAL.get(rollout.phase);
      break; // closes the stream
    }
  }
} catch (err) {
  const error = SyncWorkerError.from(err);
  console.error(`watch-fleet: ${error.message}`);
  process.exitCode = error.code === Code.NotFound ? 2 : 1;
} finally {
  clearTimeout(timer);
  fleet.close();
}
