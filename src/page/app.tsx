/**
 * The live update page: what `syncworker watch` shows, for people who look rather than read. Preact (4 kB, kept by
 * its authors, hooks and JSX without a framework's weight), bundled with the stream client by esbuild into one
 * file the service serves itself: no CDN, nothing fetched from elsewhere.
 */
import { useEffect, useState } from "preact/hooks";
import { Connection, mount, TokenForm, useToken } from "./common.js";
import { authorization, inRevisionOrder, messageOf, openStream, type StreamState } from "./stream.js";
import { seconds, span, stateName, type ComponentJson, type HistoryJson, type StatusJson } from "./status.js";

/** The revisions the page received, in order, for whoever checks that none repeats (the browser test). */
declare global {
  interface Window {
    syncworkerRevisions: number[];
  }
}
window.syncworkerRevisions = [];

function App() {
  const [token, setToken] = useToken();
  const [status, setStatus] = useState<StatusJson | undefined>();
  const [stream, setStream] = useState<StreamState>({ kind: "connecting" });
  const [actionError, setActionError] = useState("");
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    const controller = new AbortController();
    openStream(
      "/api/v1/status/stream",
      token,
      {
        events: {
          status: inRevisionOrder<StatusJson>((next, revision) => {
            window.syncworkerRevisions.push(revision);
            setStatus(next);
          }),
        },
        state: setStream,
      },
      controller.signal,
    );
    return () => controller.abort();
  }, [token]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  const act = async (action: Action, body: object): Promise<void> => {
    setActionError("");
    const response = await fetch(`/api/v1/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authorization(token) },
      body: JSON.stringify(body),
    }).catch((err: unknown) => err as Error);
    if (response instanceof Error) return setActionError(`${action} failed: ${response.message}`);
    if (!response.ok) setActionError(`${action} refused (HTTP ${response.status}): ${messageOf(await response.text())}`);
  };

  return (
    <>
      <header>
        <h1>syncworker</h1>
        <Connection state={stream} />
      </header>
      {stream.kind === "refused" && <TokenForm why={stream.why} onToken={setToken} />}
      {status && <Update status={status} now={now} />}
      {status && <Pause status={status} now={now} onAct={act} error={actionError} />}
      {status && <Failure status={status} />}
      {status && <Load status={status} />}
      {status && <Components components={status.components ?? []} now={now} />}
      {status && <History history={status.history ?? []} />}
    </>
  );
}

function Update({ status, now }: { status: StatusJson; now: number }) {
  const done = status.done ?? 0;
  const total = status.total ?? 0;
  const percent = total > 0 ? Math.floor((done / total) * 100) : 0;
  const timing = status.timing;
  const startedAt = timing?.startedAt ? Date.parse(timing.startedAt) : undefined;
  const elapsed = startedAt !== undefined ? (now - startedAt) / 1000 : seconds(timing?.elapsed);
  const remaining = seconds(timing?.estimatedRemaining);
  const desired = status.loadPayloadStatus?.update;
  return (
    <section class="update" data-testid="update">
      <h2>
        {status.actual?.version || status.actual?.image || "No release yet"}
        {desired?.image && desired.image !== status.actual?.image && <span class="desired"> → {desired.version || desired.image}</span>}
      </h2>
      <p class="message" data-testid="message">
        {status.message}
      </p>
      <div class="bar" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
        <div style={{ width: `${percent}%` }} />
      </div>
      <p class="numbers" data-testid="progress">
        {done} of {total} manifests ({percent}%)
        {elapsed !== undefined && !status.reconciling && <> · {span(elapsed)} elapsed</>}
        {remaining !== undefined && !status.reconciling && (
          <>
            {" "}
            · about {span(remaining)} left <span class="basis">({timing?.estimateBasis})</span>
          </>
        )}
      </p>
      {status.maintenance && (
        <p class="maintenance">
          Waiting for a maintenance window: {status.maintenance.reason}
          {status.maintenance.until && <>, until {new Date(status.maintenance.until).toLocaleString()}</>}
        </p>
      )}
    </section>
  );
}

/** What the page's buttons ask the service (src/api/page.ts): PauseUpdate, ResumeUpdate, CancelUpdate. */
type Action = "pause" | "resume" | "cancel";

function Pause(props: { status: StatusJson; now: number; error: string; onAct: (action: Action, body: object) => Promise<void> }) {
  const [reason, setReason] = useState("");
  const pause = props.status.pause;
  // An update in progress (or held) can be cancelled, or rolled back once it started applying.
  const updating = !props.status.reconciling && (props.status.history?.length ?? 0) > 0;
  return (
    <section class="pause" data-testid="pause">
      {updating && (
        <p class="cancel">
          <button type="button" class="secondary" data-testid="cancel" onClick={() => void props.onAct("cancel", {})}>
            Cancel update
          </button>{" "}
          <button type="button" class="secondary" data-testid="rollback" onClick={() => void props.onAct("cancel", { rollback: true })}>
            Roll back
          </button>
        </p>
      )}
      {pause?.paused ? (
        <>
          <p data-testid="paused">
            Paused by {pause.pausedBy || "someone"}
            {pause.pausedAt && <> for {span((props.now - Date.parse(pause.pausedAt)) / 1000)}</>}
            {pause.reason && <>: {pause.reason}</>}
            {pause.updatePending && <> (an Update waits for resume)</>}
          </p>
          <button type="button" data-testid="resume" onClick={() => void props.onAct("resume", {})}>
            Resume
          </button>
        </>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void props.onAct("pause", { reason });
          }}
        >
          <input placeholder="why (shown in the status)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          <button type="submit" data-testid="pause-button">
            Pause
          </button>
        </form>
      )}
      {props.error && (
        <p class="error" data-testid="action-error">
          {props.error}
        </p>
      )}
    </section>
  );
}

function Failure({ status }: { status: StatusJson }) {
  const failure = status.failure;
  if (!failure?.message) return null;
  return (
    <section class="failure" data-testid="failure">
      <h3>Last failure{failure.reason && <>: {failure.reason}</>}</h3>
      <pre>{failure.message}</pre>
    </section>
  );
}

function Load({ status }: { status: StatusJson }) {
  const load = status.loadPayloadStatus;
  if (!load?.step) return null;
  const risks = (load.acceptedRisks ?? "").split("\n").filter(Boolean);
  return (
    <section class="load" data-testid="load">
      <h3>
        Load: {load.step} · {load.verified ? "verified" : "not verified"}
      </h3>
      <p>{load.message}</p>
      {load.failure?.message && <pre class="error">{load.failure.message}</pre>}
      {risks.length > 0 && (
        <ul class="risks">
          {risks.map((r) => (
            <li key={r}>accepted: {r}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Components({ components, now }: { components: readonly ComponentJson[]; now: number }) {
  if (components.length === 0) return null;
  return (
    <section class="components">
      <h3>Components</h3>
      <table data-testid="components">
        <thead>
          <tr>
            <th>Run level</th>
            <th>Component</th>
            <th>State</th>
            <th>Done</th>
            <th>Waiting for</th>
          </tr>
        </thead>
        <tbody>
          {components.map((c) => {
            const state = stateName(c.state);
            const since = c.waitingSince ? ` for ${span((now - Date.parse(c.waitingSince)) / 1000)}` : "";
            return (
              <tr key={`${c.runLevel}/${c.component}`} class={state.toLowerCase()} data-component={c.component} data-state={state}>
                <td>{String(c.runLevel ?? 0).padStart(2, "0")}</td>
                <td>
                  {c.component}
                  {c.slow && <span class="slow"> SLOW</span>}
                </td>
                <td>{state}</td>
                <td>
                  {c.done ?? 0}/{c.total ?? 0}
                </td>
                <td class="wait">
                  {state === "Waiting" && (
                    <>
                      {c.waitReason} {c.currentObject && <code>{c.currentObject}</code>}
                      {since}
                      {(c.attempts ?? 0) > 1 && <>, attempt {c.attempts}</>}
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function History({ history }: { history: readonly HistoryJson[] }) {
  if (history.length === 0) return null;
  return (
    <section class="history">
      <h3>History</h3>
      <table data-testid="history">
        <tbody>
          {history.map((h) => (
            <tr key={`${h.image}@${h.startedTime}`}>
              <td>{h.state}</td>
              <td>{h.version || "-"}</td>
              <td>
                {h.startedTime && new Date(h.startedTime).toLocaleString()} → {h.completionTime ? new Date(h.completionTime).toLocaleString() : "…"}
              </td>
              <td class="image">
                {h.image}
                {h.verified ? "" : " (not verified)"}
                {h.rollback && " (rollback)"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

mount(<App />);
