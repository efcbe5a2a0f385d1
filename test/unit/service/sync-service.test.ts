import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeState, encodeState, StaleGenerationError, StateError, StateNotSavedError } from "../../../src/service/index.js";
import { NO_LOG, type UpdateError } from "../../../src/core/index.js";
import { SyncWorker } from "../../../src/worker/index.js";
import { ManualClock } from "../../harness/manual-clock.js";
import { MemoryStateStore } from "../../harness/memory-state-store.js";
import { configMap, payload, workerHarness } from "../../harness/worker-harness.js";
import { TUNING } from "../../../src/config/index.js";

const V0 = "1.0.0-abc";
const IMG0 = "image/image:0";
const basic = () => payload(V0, IMG0, [configMap("a"), configMap("b"), configMap("c")]);

test("a restarted service resumes the completed release: history, completed, Reconciling, revisions above the old ones", async () => {
  const state = new MemoryStateStore();
  const first = workerHarness({ payloads: [basic()], state });
  await first.update(IMG0, { generation: 4 });
  await first.start();
  assert.equal(first.last().completed, 1);
  const lastRevision = first.service.latest().revision;
  await first.stop();

  const second = workerHarness({ payloads: [basic()], state });
  await second.open();
  const resumed = second.service.latest();
  assert.ok(resumed.revision > lastRevision, `${resumed.revision} > ${lastRevision}`);
  assert.deepEqual(
    [resumed.value.worker.actual.image, resumed.value.worker.completed, resumed.value.worker.reconciling, resumed.value.worker.generation],
    [IMG0, 1, true, 4],
  );
  assert.deepEqual(
    second.history().map((h) => h.state),
    ["Completed"],
  );
  await second.start();
  assert.deepEqual(new Set(second.applier.calls.map((c) => c.mode)), new Set(["Reconciling"]), "the replayed release is reconciled, not installed again");
  assert.equal(second.last().completed, 2, "the completed count carries on");
  await second.stop();
});

test("every accepted Update is saved before it returns, status changes are saved throttled", async () => {
  const h = workerHarness({ payloads: [basic()] });
  await h.start();
  const before = h.state.saves;
  await h.update(IMG0, { generation: 2 });
  const saved = decodeState(h.state.text!, "test");
  assert.ok(h.state.saves > before);
  assert.deepEqual(saved.spec?.desired, { version: "", image: IMG0, force: false }, "the request as the client sent it");
  assert.equal(saved.spec?.generation, 2);
  await h.clock.advance(5_000);
  const later = decodeState(h.state.text!, "test");
  assert.ok(later.status.completed >= 1, "the completion was saved");
  assert.ok(later.revision.reserved > later.revision.published, "revisions are reserved ahead of what was published");
  await h.stop();
});

test("a service and a worker each start once", async () => {
  const h = workerHarness({ payloads: [basic()] });
  await h.start();
  await assert.rejects(h.service.start(), /already started/);
  await h.stop();

  const clock = new ManualClock();
  const worker = new SyncWorker({
    retriever: { retrieve: async () => ({ directory: "", local: false, verified: false }) },
    loadPayload: async () => basic(),
    applier: { apply: async () => undefined },
    clock,
    random: () => 0,
    log: NO_LOG,
    minimumReconcileIntervalMs: 500,
    backoff: { durationMs: 100, factor: 2, jitter: 0, steps: 1, capMs: 0 },
    installBackoff: TUNING.installBackoff,
    reports: { status: () => undefined, attemptsRestarted: () => undefined },
  });
  const controller = new AbortController();
  const loop = worker.start(1, controller.signal);
  await assert.rejects(worker.start(1, controller.signal), /already started/);
  controller.abort();
  await loop;
});

test("with a progress interval, progress-only snapshots are throttled; edges, the Update's own status and the last status are not", async () => {
  const many = payload(
    V0,
    IMG0,
    Array.from({ length: 40 }, (_, i) => configMap(`m${i}`)),
  );
  const every = workerHarness({ payloads: [many] });
  await every.update(IMG0);
  await every.start();
  await every.clock.advance(1_000);
  await every.stop();

  const throttled = workerHarness({ payloads: [many], progressIntervalMs: 1_000 });
  const taken = await throttled.update(IMG0);
  assert.equal(taken.generation, 1, "the Update returns the status that took it");
  assert.deepEqual(throttled.statuses.at(-1), taken, "and that status is a snapshot at once");
  await throttled.start();
  const whileFrozen = throttled.statuses.length;
  // Time stands still while the scripted applier applies 40 manifests: only the first progress report passes,
  // and the completion, an edge, at once.
  assert.ok(whileFrozen < 10, `${whileFrozen} snapshots without time passing`);
  assert.equal(throttled.statuses.at(-1)?.completed, 1, "a completed pass is shown without waiting for the interval");
  // The reconcile pass (after 500 ms) completes within the interval of the last snapshot: still shown at once.
  await throttled.clock.advance(600);
  assert.equal(throttled.statuses.at(-1)?.completed, 2, "a completed reconcile pass is shown at once too");
  await throttled.clock.advance(1_000);
  await throttled.stop();
  const last = throttled.statuses.at(-1)!;
  assert.equal(last.done, 40, "the newest status is published when the interval ends");
  assert.ok(last.completed >= 1);
  assert.ok(throttled.statuses.length < every.statuses.length / 3, `${throttled.statuses.length} snapshots against ${every.statuses.length}`);
});

test("a newly accepted release enters the history as Partial, not Completed with the previous release's count", async () => {
  const next = payload("1.1.0-abc", "image/image:1", [configMap("a"), configMap("b")]);
  const h = workerHarness({ payloads: [basic(), next] });
  await h.update(IMG0);
  await h.start();
  assert.equal(h.last().completed, 1);
  const taken = await h.update("image/image:1", { generation: 2 });
  assert.equal(taken.actual.image, "image/image:1");
  assert.equal(taken.completed, 0, "no pass of the new release has completed");
  assert.deepEqual(
    h.history().map((e) => [e.image, e.state]),
    [
      ["image/image:1", "Partial"],
      [IMG0, "Completed"],
    ],
  );
  await h.stop();
});

test("a service resumed on a completed release with a newer Update saved records the new release as Partial until it completes", async () => {
  const next = payload("1.1.0-abc", "image/image:1", [configMap("a"), configMap("b")]);
  const state = new MemoryStateStore();
  const first = workerHarness({ payloads: [basic(), next], state });
  await first.update(IMG0);
  await first.start();
  await first.stop();
  // As a process killed right after accepting an Update can leave it: the new spec beside the old release's completed status.
  const saved = decodeState(state.text!, "test");
  state.text = encodeState({ ...saved, spec: { ...saved.spec!, generation: 2, desired: { version: "", image: "image/image:1", force: false } } });

  const second = workerHarness({ payloads: [basic(), next], state });
  await second.open();
  await second.clock.advance(0);
  const loaded = second.statuses.find((s) => s.actual.image === "image/image:1");
  assert.ok(loaded, "the saved Update is replayed");
  assert.equal(loaded.completed, 0, "no pass of the new release has completed");
  assert.deepEqual(
    second
      .history()
      .slice(0, 2)
      .map((e) => [e.image, e.state])
      .at(-1),
    [IMG0, "Completed"],
  );
  assert.ok(second.statuses.filter((s) => s.actual.image === "image/image:1" && s.done < s.total).every((s) => s.completed === 0));
  await second.stop();
});

test("an Update refused for its plan controls is saved with them: a restarted service refuses it again and applies nothing of it", async () => {
  const next = payload("1.1.0-abc", "image/image:1", [configMap("d")]);
  const state = new MemoryStateStore();
  const first = workerHarness({ payloads: [basic(), next], state });
  await first.update(IMG0);
  await first.start();
  // This harness's cluster has no dry-run planner: any plan control refuses the release at PreconditionChecks.
  const request = {
    generation: 2,
    desired: { version: "", image: "image/image:1", force: false },
    overrides: [],
    capabilities: { baselineCapabilitySet: "", additionalEnabledCapabilities: [] },
    state: undefined,
    limits: { maxDeletions: 0 },
    expectedPlanDigest: `sha256:${"0".repeat(64)}`,
  };
  const refused = (await first.service.update(request, new AbortController().signal)).value.worker;
  assert.deepEqual(
    [refused.loadPayloadStatus.step, (refused.loadPayloadStatus.failure as UpdateError | undefined)?.reason],
    ["PreconditionChecks", "PlanUnavailable"],
  );
  const saved = decodeState(state.text!, "test").spec;
  assert.deepEqual([saved?.desired.image, saved?.limits, saved?.expectedPlanDigest], ["image/image:1", { maxDeletions: 0 }, `sha256:${"0".repeat(64)}`]);
  await first.stop();

  const second = workerHarness({ payloads: [basic(), next], state });
  await second.start();
  await second.clock.advance(5_000);
  const replayed = second.statuses.filter((s) => s.loadPayloadStatus.step === "PreconditionChecks");
  assert.ok(replayed.length > 0, "the saved Update is replayed and refused again");
  assert.ok(replayed.every((s) => (s.loadPayloadStatus.failure as UpdateError | undefined)?.reason === "PlanUnavailable"));
  assert.deepEqual(
    second.applier.calls,
    [],
    "nothing of the refused release is applied (nor is the previous one reconciled, as the CVO with a desired release it cannot load)",
  );
  assert.ok(
    second.statuses.every((s) => s.actual.image === IMG0),
    "the release shown stays the one applied",
  );
  assert.equal(decodeState(state.text!, "test").spec?.limits?.maxDeletions, 0, "still saved with its controls");
  await second.stop();
});

test("a restarted service shows the components and timing it saved at once, before its first pass", async () => {
  const release = payload(V0, IMG0, [configMap("a", "0000_10_config_a.yaml"), configMap("b", "0000_20_dns_b.yaml"), configMap("c", "0000_20_dns_c.yaml")]);
  const state = new MemoryStateStore();
  const first = workerHarness({ payloads: [release], state });
  // c never finishes: the service stops mid-pass, one component done and one applying.
  first.applier.scripts.set(
    "c",
    (_attempt, _mode, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error))),
  );
  await first.update(IMG0);
  await first.start();
  await first.clock.advance(3_000);
  const running = first.service.latest().value;
  assert.deepEqual(
    running.worker.components.map((c) => [c.component, c.state]),
    [
      ["config", "Done"],
      ["dns", "Applying"],
    ],
  );
  assert.ok(running.progress?.timing, "the leader's snapshot has timing");
  await first.stop();
  const saved = decodeState(state.text!, "test");

  const second = workerHarness({ payloads: [release], state });
  // The same time as the stop (each harness's fake clock starts at the same instant).
  await second.clock.advance(3_000);
  await second.open();
  const resumed = second.service.latest().value;
  assert.ok(resumed.worker.components.length === 2, JSON.stringify(resumed.worker.components));
  assert.deepEqual(resumed.worker.components, saved.status.components, "the components as the last leader saved them");
  assert.equal(resumed.worker.components[0]?.finishedAt?.getTime(), running.worker.components[0]?.finishedAt?.getTime());
  assert.deepEqual(resumed.progress, saved.progress);
  assert.equal(resumed.progress?.timing?.startedAt.getTime(), running.progress.timing.startedAt.getTime(), "the same update's start");
  await second.stop();
});

const IMG1 = "image/image:1";

test("an Update, pause or resume whose state cannot be saved is refused and changes nothing; stop then fails", async () => {
  const h = workerHarness({ payloads: [basic(), payload("1.1.0-def", IMG1, [configMap("a")])] });
  await h.update(IMG0, { generation: 2 });
  await h.start();
  assert.equal(h.last().completed, 1);
  const saved = h.state.text;
  const before = h.service.latest();
  const retrievals = h.retrievals.length;
  h.state.failure = new StateError("memory state", "cannot be written: ENOSPC: no space left on device");
  const refused =
    (change: string, cause = "ENOSPC: no space left on device") =>
    (err: unknown) =>
      err instanceof StateNotSavedError &&
      err.change === change &&
      err.message === `${change} was not applied because its state could not be saved: memory state: cannot be written: ${cause}`;
  await assert.rejects(h.update(IMG1, { generation: 3 }), refused("Update"));
  await assert.rejects(h.service.pause("alice", "window"), refused("PauseUpdate"));
  await h.clock.advance(5_000);
  const after = h.service.latest().value;
  assert.equal(h.retrievals.length, retrievals, "the refused release was never retrieved");
  assert.deepEqual([after.worker.actual.image, after.worker.generation, after.worker.pause], [IMG0, 2, undefined], "not updated, not paused");
  assert.deepEqual(after.clusterVersion.history, before.value.clusterVersion.history);
  assert.equal(h.state.text, saved, "nothing was stored");

  h.state.failure = undefined;
  await h.service.pause("alice", "window");
  h.state.failure = new StateError("memory state", "cannot be written: EIO");
  await assert.rejects(h.service.resume(), refused("ResumeUpdate", "EIO"));
  assert.equal(h.service.latest().value.worker.pause?.pausedBy, "alice", "still paused");
  await assert.rejects(h.service.stop(), /memory state: cannot be written: EIO/, "the last state was not saved: stop says so");
});

test("an Update older than the last accepted one is refused naming both generations, also after a restart", async () => {
  const state = new MemoryStateStore();
  const first = workerHarness({ payloads: [basic(), payload("1.1.0-def", IMG1, [configMap("a")])], state });
  await first.update(IMG0, { generation: 10 });
  const stale = (err: unknown) =>
    err instanceof StaleGenerationError && err.message === "generation 5 is older than the last accepted Update's generation 10; send generation 10 or higher";
  await assert.rejects(first.update(IMG1, { generation: 5 }), stale);
  assert.equal(first.service.latest().value.worker.generation, 10);
  await first.update(IMG0, { generation: 10 });
  await first.stop();
  assert.equal(decodeState(state.text!, "test").spec?.generation, 10);

  const second = workerHarness({ payloads: [basic(), payload("1.1.0-def", IMG1, [configMap("a")])], state });
  await assert.rejects(second.update(IMG1, { generation: 5 }), stale);
  await second.stop();
});
