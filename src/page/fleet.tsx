/**
 * The fleet page: what `syncworker watch --fleet` shows, live in a browser, on `syncworker fleet`'s admin listener.
 * A rollout picked from the namespace's (`#NAME` in the address picks one), its phase and stages, its members by
 * state, and every member under way or held up with what holds it. One stream per page (the rollout's views, as
 * FleetWatch sends them); the list of rollouts is fetched when the page opens, when the picker is opened and when the
 * stream has to reconnect (every 5 s while there is no rollout to follow).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { Connection, mount, TokenForm, useToken } from "./common.js";
import {
  LISTED_STATES,
  MEMBER_STATES,
  memberState,
  type FleetEventJson,
  type MemberJson,
  type RolloutItem,
  type RolloutJson,
  type StageJson,
} from "./fleet-json.js";
import { seconds, span } from "./status.js";
import { authorization, isRefusal, openStream, whyRefused, type StreamState } from "./stream.js";

/** The rollout named by the address (`…/#to-1-1-0`), or "". */
const hashName = (): string => decodeURIComponent(location.hash.slice(1));

/** How often the list of rollouts is fetched while there is none to follow. */
const LIST_POLL_MS = 5_000;

/** The phases after which a rollout does nothing more. */
const DONE_PHASES = new Set(["Completed", "Halted", "Cancelled"]);

/** What the stream has said of the followed rollout so far. */
interface Followed {
  readonly rollout?: RolloutJson;
  readonly members: ReadonlyMap<string, MemberJson>;
  /** The first burst is over: every member is there. */
  readonly synced: boolean;
}
const NOTHING: Followed = { members: new Map(), synced: false };

type ListState = { readonly kind: "loading" } | { readonly kind: "loaded" } | { readonly kind: "refused" | "failed"; readonly why: string };

function FleetApp() {
  const [token, setToken] = useToken();
  const [rollouts, setRollouts] = useState<readonly RolloutItem[]>([]);
  const [list, setList] = useState<ListState>({ kind: "loading" });
  const [picked, setPicked] = useState(hashName);
  const [stream, setStream] = useState<StreamState>({ kind: "connecting" });
  const [followed, setFollowed] = useState<Followed>(NOTHING);

  const loadList = async (): Promise<void> => {
    const response = await fetch("/api/v1/fleet/rollouts", { headers: authorization(token) }).catch((err: unknown) => err as Error);
    if (response instanceof Error) return setList({ kind: "failed", why: response.message });
    if (!response.ok) return setList({ kind: isRefusal(response.status) ? "refused" : "failed", why: await whyRefused(response) });
    setRollouts((await response.json()) as RolloutItem[]);
    setList({ kind: "loaded" });
  };
  // The latest loadList (it closes over the token) for the stream's handlers, which live as long as their stream.
  const reload = useRef(loadList);
  reload.current = loadList;

  useEffect(() => void loadList(), [token]);
  useEffect(() => {
    const changed = (): void => setPicked(hashName());
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);

  // The address's rollout, else the first one under way, else the first; once shown, it stays picked (and in the address).
  const name = picked || (rollouts.find((r) => !DONE_PHASES.has(r.phase)) ?? rollouts[0])?.name || "";
  useEffect(() => {
    if (!name || name === picked) return;
    setPicked(name);
    history.replaceState(null, "", `#${encodeURIComponent(name)}`);
  }, [name]);
  // With no rollout to follow there is no stream to tell of a new one: the list is asked again now and then.
  useEffect(() => {
    if (name || list.kind === "refused") return;
    const timer = setInterval(() => void reload.current(), LIST_POLL_MS);
    return () => clearInterval(timer);
  }, [name, list.kind]);

  useEffect(() => {
    setFollowed(NOTHING);
    if (!name) return;
    const controller = new AbortController();
    // Views, not changes: each event replaces what it is a view of, so a reconnect that sends them all again is harmless.
    const members = new Map<string, MemberJson>();
    let current: Followed = NOTHING;
    openStream(
      `/api/v1/fleet/stream?rollout=${encodeURIComponent(name)}`,
      token,
      {
        events: {
          fleet: (data) => {
            const event = data as FleetEventJson;
            if (event.member?.member) members.set(event.member.member, event.member);
            current = { rollout: event.rollout ?? current.rollout, members, synced: current.synced || event.synced !== undefined };
            setFollowed(current);
          },
        },
        state: (state) => {
          setStream(state);
          // The rollout may be gone, or others may have come: the list says.
          if (state.kind === "retrying") void reload.current();
        },
      },
      controller.signal,
    );
    return () => controller.abort();
  }, [token, name]);

  const refusal = stream.kind === "refused" ? stream.why : list.kind === "refused" ? list.why : "";
  return (
    <>
      <header>
        <h1>syncworker fleet</h1>
        {name && <Connection state={stream} />}
      </header>
      {refusal && <TokenForm why={refusal} onToken={setToken} />}
      <Picker
        rollouts={rollouts.map((r) => (r.name === name && followed.rollout ? live(r, followed.rollout) : r))}
        name={name}
        list={list}
        onOpen={() => void loadList()}
      />
      {followed.rollout && <Rollout rollout={followed.rollout} synced={followed.synced} />}
      {followed.rollout && <Stages rollout={followed.rollout} />}
      {followed.rollout && <Members members={[...followed.members.values()]} />}
    </>
  );
}

/** A line of the list brought up to date with the stream's view of the same rollout. */
const live = (item: RolloutItem, view: RolloutJson): RolloutItem => ({
  ...item,
  phase: view.phase ?? item.phase,
  release: view.releaseVersion ?? item.release,
  stageSummary: view.stageSummary ?? item.stageSummary,
});

function Picker(props: { rollouts: readonly RolloutItem[]; name: string; list: ListState; onOpen: () => void }) {
  const known = props.rollouts.some((r) => r.name === props.name);
  return (
    <section class="picker">
      <label>
        Rollout{" "}
        <select
          data-testid="rollout-picker"
          value={props.name}
          onFocus={props.onOpen}
          onChange={(e) => (location.hash = encodeURIComponent(e.currentTarget.value))}
        >
          {!known && props.name && <option value={props.name}>{props.name}</option>}
          {props.rollouts.map((r) => (
            <option key={r.name} value={r.name}>
              {r.name} · {r.release || "?"} · {r.phase || "Pending"}
            </option>
          ))}
        </select>
      </label>
      {props.list.kind === "loaded" && props.rollouts.length === 0 && <p data-testid="no-rollouts">No ReleaseRollout in this namespace yet.</p>}
      {props.list.kind === "failed" && <p class="error">The rollouts could not be listed: {props.list.why}</p>}
    </section>
  );
}

function Rollout({ rollout, synced }: { rollout: RolloutJson; synced: boolean }) {
  const counts = rollout.counts ?? {};
  const total = counts.total ?? 0;
  const succeeded = counts.succeeded ?? 0;
  const percent = total > 0 ? Math.floor((succeeded / total) * 100) : 0;
  const conditions = (rollout.conditions ?? []).filter((c) => c.status === "True");
  return (
    <section class="update" data-testid="rollout" data-synced={String(synced)}>
      <h2>
        {rollout.name}
        <span class="desired"> → {rollout.releaseVersion || rollout.pinnedImage}</span>
      </h2>
      <p class="message" data-testid="phase">
        {rollout.phase || "Pending"}
        {rollout.currentStage && <>, stage {rollout.currentStage}</>}
        {rollout.stageSummary && <> · {rollout.stageSummary}</>}
      </p>
      <div class="bar" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={succeeded}>
        <div style={{ width: `${percent}%` }} />
      </div>
      <p class="numbers">
        {succeeded} of {total} members at the release ({percent}%)
        {rollout.pinnedImage && (
          <>
            {" "}
            · <span class="image">{rollout.pinnedImage}</span>
          </>
        )}
      </p>
      {conditions.length > 0 && (
        <ul class="conditions" data-testid="conditions">
          {conditions.map((c) => (
            <li key={c.type} class={c.type === "Halted" ? "error" : ""} data-type={c.type}>
              {c.type}
              {c.reason && c.reason !== c.type && <> ({c.reason})</>}
              {c.message && <>: {c.message}</>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Stages({ rollout }: { rollout: RolloutJson }) {
  const stages = rollout.stages ?? [];
  if (stages.length === 0) return null;
  return (
    <section class="stages">
      <h3>Stages</h3>
      <table data-testid="stages">
        <thead>
          <tr>
            <th>Stage</th>
            <th>Succeeded</th>
            <th>Updating</th>
            <th>Failed</th>
            <th>Unavailable</th>
            <th>Blocked</th>
            <th>Started</th>
            <th>Completed</th>
          </tr>
        </thead>
        <tbody>
          {stages.map((s) => (
            <StageRow key={s.name} stage={s} current={s.name === rollout.currentStage} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function StageRow({ stage, current }: { stage: StageJson; current: boolean }) {
  const c = stage.counts ?? {};
  const soaking = stage.soakUntil && stage.soakUntil !== stage.completedAt;
  return (
    <tr class={current ? "current" : stage.completedAt ? "done" : ""} data-stage={stage.name}>
      <td>{stage.name}</td>
      <td data-testid="succeeded">
        {c.succeeded ?? 0}/{c.total ?? 0}
      </td>
      <td>{c.updating ?? 0}</td>
      <td>{c.failed ?? 0}</td>
      <td>{c.unavailable ?? 0}</td>
      <td>{c.blocked ?? 0}</td>
      <td>{when(stage.startedAt)}</td>
      <td>
        {when(stage.completedAt)}
        {soaking && <>, soak until {when(stage.soakUntil)}</>}
      </td>
    </tr>
  );
}

/** A member's state as the page orders them: by MEMBER_STATES, then by name. */
const order = (state: string): number => (MEMBER_STATES as readonly string[]).indexOf(state);

function Members({ members }: { members: readonly MemberJson[] }) {
  const byState = new Map<string, MemberJson[]>();
  for (const m of [...members].sort((a, b) => (a.member ?? "").localeCompare(b.member ?? ""))) {
    const state = memberState(m.state);
    byState.set(state, [...(byState.get(state) ?? []), m]);
  }
  // Under way or held up: the states that are listed, and a pending member something holds (unreachable, not seen yet).
  const listed = members
    .filter((m) => LISTED_STATES.has(memberState(m.state)) || (memberState(m.state) === "pending" && m.blocker))
    .sort((a, b) => order(memberState(a.state)) - order(memberState(b.state)) || (a.member ?? "").localeCompare(b.member ?? ""));
  const counted = MEMBER_STATES.filter((s) => !LISTED_STATES.has(s) && byState.has(s));
  return (
    <section class="members">
      <h3>Members</h3>
      <ul class="counts" data-testid="counts">
        {MEMBER_STATES.filter((s) => byState.has(s)).map((s) => (
          <li key={s} class={s} data-state={s}>
            {byState.get(s)?.length} {s}
          </li>
        ))}
        <li data-state="total">{members.length} in all</li>
      </ul>
      {listed.length > 0 && (
        <table data-testid="members">
          <thead>
            <tr>
              <th>Member</th>
              <th>Stage</th>
              <th>State</th>
              <th>Done</th>
              <th>Left</th>
              <th>Held by</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((m) => {
              const left = seconds(m.estimatedRemaining);
              const state = memberState(m.state);
              return (
                <tr key={m.member} class={state} data-member={m.member} data-state={state}>
                  <td>{m.member}</td>
                  <td>{m.stage}</td>
                  <td>{state}</td>
                  <td>{m.total ? `${m.done ?? 0}/${m.total}` : ""}</td>
                  <td>{left !== undefined && <>about {span(left)}</>}</td>
                  <td class="wait" data-testid="blocker">
                    {m.blocker}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {counted.map((s) => (
        <details key={s} data-state={s}>
          <summary>
            {byState.get(s)?.length} {s}
          </summary>
          <ul class="names">
            {byState.get(s)?.map((m) => (
              <li key={m.member} data-member={m.member}>
                {m.member} <span class="basis">({[m.stage, m.version].filter(Boolean).join(", ")})</span>
              </li>
            ))}
          </ul>
        </details>
      ))}
    </section>
  );
}

/** A time of the rollout's: the time of day when it is today's, else the date too. */
function when(time: string | undefined): string {
  if (!time) return "";
  const at = new Date(time);
  return at.toDateString() === new Date().toDateString() ? at.toLocaleTimeString() : at.toLocaleString();
}

mount(<FleetApp />);
