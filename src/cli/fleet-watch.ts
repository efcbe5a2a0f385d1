/**
 * `syncworker watch --fleet ROLLOUT`: the fleet's one stream (FleetWatch from `syncworker fleet`). On a terminal, a
 * view redrawn in place: the rollout's phase and stages, the members by state, and every member under way or held up
 * with what blocks it. Otherwise one JSON line per event, as the API's JSON mapping has it.
 */
import { FleetWatchResponse, MemberState, type FleetClient, type MemberView, type RolloutView } from "@syncworker/client";
import { terminalSafe } from "./terminal-text.js";

export interface FleetWatchOptions {
  readonly rollout: string;
  readonly namespace: string;
  /** Stop once the rollout is done: Completed, Halted or Cancelled. */
  readonly untilDone: boolean;
  readonly signal: AbortSignal;
  readonly out: NodeJS.WriteStream;
}

export const FINAL_PHASES: ReadonlySet<string> = new Set(["Completed", "Halted", "Cancelled"]);

const STATE_NAMES = new Map<MemberState, string>(
  Object.entries(MemberState)
    .filter((entry): entry is [string, MemberState] => typeof entry[1] === "number")
    .map(([name, value]) => [value, name.replace("MEMBER_STATE_", "").toLowerCase()]),
);
/** States shown member by member: those under way or held up. Pending, succeeded and cancelled ones are only counted. */
const LISTED = new Set([
  MemberState.MEMBER_STATE_STARTING,
  MemberState.MEMBER_STATE_UPDATING,
  MemberState.MEMBER_STATE_PAUSED,
  MemberState.MEMBER_STATE_FAILED,
  MemberState.MEMBER_STATE_UNAVAILABLE,
  MemberState.MEMBER_STATE_BLOCKED,
]);

/** The view's lines, for a terminal of `columns`. */
export function fleetLines(rollout: RolloutView | undefined, members: ReadonlyMap<string, MemberView>, columns: number): string[] {
  if (!rollout) return ["waiting for the rollout…"];
  const fit = (line: string): string => (line.length > columns ? `${line.slice(0, columns - 1)}…` : line);
  const c = rollout.counts;
  const lines = [
    `${rollout.name} (${rollout.releaseVersion || rollout.pinnedImage}): ${rollout.phase}${rollout.currentStage ? `, stage ${rollout.currentStage}` : ""}`,
    `stages: ${rollout.stageSummary}`,
    `members: ${c?.succeeded ?? 0} succeeded, ${c?.updating ?? 0} updating, ${c?.pending ?? 0} pending, ${c?.failed ?? 0} failed, ${c?.unavailable ?? 0} unavailable, ${c?.blocked ?? 0} blocked of ${c?.total ?? 0}`,
  ];
  const halted = rollout.conditions.find((cond) => cond.type === "Halted" && cond.status === "True");
  if (halted) lines.push(`halted: ${halted.message}`);
  const listed = [...members.values()].filter((m) => LISTED.has(m.state)).sort((a, b) => a.state - b.state || a.member.localeCompare(b.member));
  for (const m of listed) {
    const estimate = m.estimatedRemaining ? ` ~${m.estimatedRemaining.seconds}s` : "";
    lines.push(
      `  ${m.member.padEnd(12)} ${m.stage.padEnd(10)} ${(STATE_NAMES.get(m.state) ?? "").padEnd(11)} ${`${m.done}/${m.total}`.padEnd(9)}${estimate} ${m.blocker}`.trimEnd(),
    );
  }
  return lines.map((line) => fit(terminalSafe(line)));
}

/** Streams the rollout until the signal aborts (or, with `untilDone`, it is done); the rollout's last view. */
export async function watchFleet(client: FleetClient, o: FleetWatchOptions): Promise<RolloutView | undefined> {
  const members = new Map<string, MemberView>();
  let rollout: RolloutView | undefined;
  let synced = false;
  let drawn = 0;
  const tty = o.out.isTTY;
  const draw = (): void => {
    const lines = fleetLines(rollout, members, o.out.columns || 100);
    // Up over the last drawing, then each line cleared and written again.
    o.out.write(`${drawn > 0 ? `\x1b[${drawn}F` : ""}${lines.map((l) => `\x1b[2K${l}\n`).join("")}\x1b[J`);
    drawn = lines.length;
  };
  try {
    for await (const event of client.watchFleet({ rollout: o.rollout, namespace: o.namespace, signal: o.signal })) {
      if (event.rollout) rollout = event.rollout;
      if (event.member) members.set(event.member.member, event.member);
      if (event.synced) synced = true;
      if (tty) {
        if (synced) draw();
      } else o.out.write(`${JSON.stringify(FleetWatchResponse.toJSON(event))}\n`);
      if (o.untilDone && synced && FINAL_PHASES.has(rollout?.phase ?? "")) break;
    }
  } catch (err) {
    if (!o.signal.aborted) throw err;
  }
  return rollout;
}
