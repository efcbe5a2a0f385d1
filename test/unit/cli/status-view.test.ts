// The human forms of the CLI: `status`'s summary, the install wait's headline, `watch`'s separator, and the
// documents of `-o json|yaml` and `diff -o json`, from snapshots at fixed times.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { ComponentState, PreviewAction, SyncWorkerStatus, type ComponentProgress, type ObjectPreview, type PreviewSummary } from "@syncworker/client";
import { diffDocument } from "../../../src/cli/diff.js";
import { headline, isInstallWait } from "../../../src/cli/headline.js";
import { document, yamlStream } from "../../../src/cli/output.js";
import { HISTORY_SHOWN, stateText, statusLines } from "../../../src/cli/status-view.js";
import { followingLine, followingRecord, updateKey } from "../../../src/cli/watch.js";

const at = (iso: string): Date => new Date(iso);
const status = (s: Partial<SyncWorkerStatus>): SyncWorkerStatus => ({ ...SyncWorkerStatus.fromPartial({}), ...s });
const component = (c: Partial<ComponentProgress>): ComponentProgress => ({
  runLevel: 10,
  component: "demo-config",
  state: ComponentState.COMPONENT_STATE_DONE,
  done: 5,
  total: 5,
  currentObject: "",
  waitReason: "",
  attempts: 1,
  slow: false,
  ...c,
});
const loaded = {
  step: "PayloadLoaded",
  message: "Payload loaded",
  preconditionResults: [],
  acceptedRisks: "",
  verified: false,
  update: { version: "1.0.0", image: "quay.io/demo/release@sha256:aa", force: false },
};

/** A healthy install, as upstream's Initializing mode reports operators that are not up yet. */
const installing = status({
  initial: true,
  done: 18,
  total: 23,
  message: "Unable to apply 1.0.0: Cluster operators demo-api, demo-config are not available",
  failure: {
    reason: "ClusterOperatorsNotAvailable",
    message: "Cluster operators demo-api, demo-config are not available",
    effect: 4,
    names: ["demo-api", "demo-config"],
  },
  actual: { version: "1.0.0", image: "quay.io/demo/release@sha256:aa", url: "", channels: [] },
  loadPayloadStatus: loaded,
  conditions: [{ type: "Failing", status: "True", reason: "ClusterOperatorsNotAvailable", message: "…", lastTransitionTime: at("2026-01-01T10:00:05Z") }],
  history: [
    {
      state: "Partial",
      version: "1.0.0",
      image: "quay.io/demo/release@sha256:aa",
      verified: true,
      startedTime: at("2026-01-01T10:00:00Z"),
      acceptedRisks: "",
      rollback: false,
    },
  ],
  timing: { startedAt: at("2026-01-01T10:00:00Z"), estimateBasis: "" },
  publishedAt: at("2026-01-01T10:00:05Z"),
  components: [
    component({ runLevel: 3, component: "demo-crds", done: 1, total: 1 }),
    component({
      state: ComponentState.COMPONENT_STATE_WAITING,
      currentObject: "clusteroperator/demo-config",
      waitReason: "ClusterOperatorNotAvailable",
      waitingSince: at("2026-01-01T10:00:02Z"),
    }),
  ],
});

describe("the install wait", () => {
  test("reads as a wait for the operators, not as the failure upstream reports", () => {
    assert.ok(isInstallWait(installing));
    assert.equal(
      headline(installing),
      "Installing 1.0.0: 18 of 23 done (78% complete), waiting for cluster operators demo-api, demo-config to become available",
    );
    assert.equal(
      headline({ ...installing, failure: { ...installing.failure!, names: ["demo-api"] } }).endsWith(
        "waiting for cluster operator demo-api to become available",
      ),
      true,
    );
    const paused = {
      ...installing,
      message: `${installing.message}; paused by alice since 2026-01-01T10:00:06.000Z: freeze`,
      pause: { paused: true, pausedBy: "alice", reason: "freeze", pausedAt: at("2026-01-01T10:00:06Z"), updatePending: false },
    };
    assert.equal(
      headline(paused),
      "Installing 1.0.0: 18 of 23 done (78% complete), waiting for cluster operators demo-api, demo-config to become available; paused by alice since 2026-01-01T10:00:06.000Z: freeze",
      "the pause, as the service notes it",
    );
  });
  const cases: Array<{ name: string; s: SyncWorkerStatus }> = [
    { name: "an update past the install", s: { ...installing, initial: false } },
    { name: "an operator that failed otherwise", s: { ...installing, failure: { ...installing.failure!, reason: "ClusterOperatorDegraded" } } },
    { name: "a release still loading", s: { ...installing, loadPayloadStatus: { ...loaded, step: "RetrievePayload" } } },
  ];
  for (const tc of cases) {
    test(`keeps the status message for ${tc.name}`, () => {
      assert.equal(isInstallWait(tc.s), false);
      assert.equal(headline(tc.s), tc.s.message);
    });
  }
});

describe("status summary", () => {
  test("an install: release, state, progress, what blocks and since when, ETA, pause, no failure, history", () => {
    assert.deepEqual(statusLines(installing, at("2026-01-01T10:00:12Z")), [
      "Installing 1.0.0: 18 of 23 done (78% complete), waiting for cluster operators demo-api, demo-config to become available",
      "",
      "Current release: none completely applied yet",
      "Desired release: 1.0.0 (quay.io/demo/release@sha256:aa)",
      "State:           Installing, waiting for operators to become available",
      "Progress:        18/23 manifests (78%)",
      "Blocked by:      10/demo-config 5/5 waiting for 10s on clusteroperator/demo-config (ClusterOperatorNotAvailable), since 2026-01-01T10:00:02Z",
      "ETA:             unknown",
      "Paused:          no",
      "Last failure:    none",
      "History:",
      "  Partial   1.0.0        2026-01-01T10:00:00Z → …  quay.io/demo/release@sha256:aa",
    ]);
  });

  test("a paused update that is failing names who paused, why, and the failure since it began", () => {
    const failing = status({
      ...installing,
      initial: false,
      message: "Unable to apply 1.1.0: the workload demo/web cannot roll out",
      failure: { reason: "WorkloadNotProgressing", message: "deployment demo/web is not progressing", effect: 4, names: [] },
      actual: { version: "1.1.0", image: "quay.io/demo/release@sha256:bb", url: "", channels: [] },
      loadPayloadStatus: { ...loaded, update: { version: "1.1.0", image: "quay.io/demo/release@sha256:bb", force: false } },
      pause: { paused: true, pausedBy: "alice", reason: "change window", pausedAt: at("2026-01-01T10:00:00Z"), updatePending: false },
      timing: { startedAt: at("2026-01-01T10:00:00Z"), estimatedRemaining: { seconds: 60, nanos: 0 }, estimateBasis: "from 2 previous updates" },
      history: [
        {
          state: "Partial",
          version: "1.1.0",
          image: "quay.io/demo/release@sha256:bb",
          verified: true,
          startedTime: at("2026-01-01T10:00:00Z"),
          acceptedRisks: "",
          rollback: false,
        },
        ...Array.from({ length: HISTORY_SHOWN }, (_, i) => ({
          state: "Completed",
          version: `1.0.${i}`,
          image: `quay.io/demo/release@sha256:0${i}`,
          verified: false,
          startedTime: at("2025-12-01T10:00:00Z"),
          completionTime: at("2025-12-01T11:00:00Z"),
          acceptedRisks: "",
          rollback: false,
        })),
      ],
    });
    const lines = statusLines(failing, at("2026-01-01T10:03:00Z"));
    assert.equal(lines[0], failing.message);
    assert.equal(lines[2], "Current release: 1.0.0 (quay.io/demo/release@sha256:00)");
    assert.equal(lines[3], "Desired release: 1.1.0 (quay.io/demo/release@sha256:bb)");
    assert.equal(lines[4], "State:           Paused");
    assert.equal(lines[7], "ETA:             overdue (from 2 previous updates)");
    assert.equal(lines[8], "Paused:          yes, by alice since 2026-01-01T10:00:00Z (3m00s): change window");
    assert.equal(lines[9], "Last failure:    WorkloadNotProgressing: deployment demo/web is not progressing (since 2026-01-01T10:00:05Z)");
    assert.equal(lines.filter((l) => l.startsWith("  Completed ")).length, HISTORY_SHOWN - 1, "the head of the history");
    assert.equal(lines.at(-1), "  … and 1 more (-o yaml shows them)");
    assert.match(
      lines.find((l) => l.startsWith("  Completed 1.0.1")) ?? "",
      /2025-12-01T10:00:00Z → 2025-12-01T11:00:00Z {2}quay\.io\/demo\/release@sha256:01 \(not verified\)$/,
    );
  });

  const states: Array<{ name: string; s: SyncWorkerStatus; want: string }> = [
    { name: "nothing asked for", s: status({ message: "Waiting for an update" }), want: "Waiting for an update" },
    {
      name: "a load that failed",
      s: status({
        loadPayloadStatus: { ...loaded, step: "RetrievePayload", failure: { reason: "RetrievePayload", message: "no such image", effect: 0, names: [] } },
      }),
      want: "Release not accepted (RetrievePayload failed)",
    },
    {
      name: "a load under way",
      s: status({ loadPayloadStatus: { ...loaded, step: "VerifyPayloadVersion" } }),
      want: "Loading the release (VerifyPayloadVersion)",
    },
    {
      name: "an applied release",
      s: status({ ...installing, initial: false, failure: undefined, conditions: [], reconciling: true }),
      want: "Applied, reconciling",
    },
    { name: "an update under way", s: status({ ...installing, initial: false, failure: undefined, conditions: [] }), want: "Updating" },
  ];
  for (const tc of states) test(`state: ${tc.name}`, () => assert.equal(stateText(tc.s), tc.want));

  test("an update's wait on an operator is no failure: the status carries it, Failing is False", () => {
    const waiting = status({
      ...installing,
      initial: false,
      failure: { reason: "ClusterOperatorUpdating", message: "Cluster operator demo-config is updating versions", effect: 2, names: [] },
      conditions: [{ type: "Failing", status: "False", reason: "", message: "", lastTransitionTime: at("2026-01-01T10:00:00Z") }],
    });
    assert.ok(statusLines(waiting, at("2026-01-01T10:00:12Z")).includes("Last failure:    none"));
  });
});

test("watch's separator names each update it follows: its release and when it started", () => {
  assert.equal(updateKey(status({})), "", "nothing to follow before an update");
  assert.notEqual(
    updateKey(installing),
    updateKey({ ...installing, timing: { startedAt: at("2026-01-02T00:00:00Z"), estimateBasis: "" } }),
    "the same release updated to again is a new update",
  );
  assert.equal(followingLine(installing), "── following 1.0.0 (quay.io/demo/release@sha256:aa) ──");
  assert.equal(
    followingLine({ ...installing, actual: { ...installing.actual!, version: "" } }),
    "── following quay.io/demo/release@sha256:aa, version not known yet ──",
  );
  assert.deepEqual(JSON.parse(followingRecord(installing)), {
    following: { version: "1.0.0", image: "quay.io/demo/release@sha256:aa", startedAt: "2026-01-01T10:00:00.000Z" },
  });
});

test("-o json and yaml documents, and the YAML stream of render -o yaml", () => {
  const value = { message: "a long message ".repeat(10).trim(), n: 1 };
  assert.deepEqual(JSON.parse(document(value, "json")), value);
  assert.equal(document(value, "yaml"), `message: ${value.message}\nn: 1\n`, "long strings are not folded");
  const docs = parseAllDocuments(yamlStream([{ kind: "A" }, { kind: "B" }]));
  assert.deepEqual(Array.isArray(docs) ? docs.map((d) => d.toJS() as unknown) : [], [{ kind: "A" }, { kind: "B" }]);
});

test("diff -o json: every object with its action, the counts, the plan digest and the digest previewed", () => {
  const digest = `sha256:${"c".repeat(64)}`;
  const summary: PreviewSummary = {
    create: 1,
    change: 1,
    unchanged: 1,
    delete: 0,
    skipped: 1,
    planDigest: "sha256:plan",
    release: { version: "1.1.0", image: `quay.io/demo/release@${digest}`, url: "", channels: [] },
    limitViolations: [],
  };
  const object = (action: PreviewAction, o: Partial<ObjectPreview> = {}): ObjectPreview => ({
    action,
    group: "apps",
    kind: "Deployment",
    namespace: "demo",
    name: "web",
    diff: "",
    skippedReason: "",
    file: "0000_50_web.yaml",
    ...o,
  });
  const objects = [
    object(PreviewAction.PREVIEW_ACTION_CREATE),
    object(PreviewAction.PREVIEW_ACTION_CHANGE, { diff: "--- a\n+++ b\n" }),
    object(PreviewAction.PREVIEW_ACTION_UNCHANGED),
    object(PreviewAction.PREVIEW_ACTION_SKIPPED, { skippedReason: "capability Console is not enabled" }),
  ];
  const doc = diffDocument("quay.io/demo/release:1.1", objects, summary) as {
    release: { digest: string };
    planDigest: string;
    summary: object;
    objects: Array<{ action: string; diff?: string; skippedReason?: string }>;
  };
  assert.equal(doc.release.digest, digest);
  assert.equal(doc.planDigest, "sha256:plan");
  assert.deepEqual(doc.summary, { create: 1, change: 1, delete: 0, unchanged: 1, skipped: 1 });
  assert.deepEqual(
    doc.objects.map((o) => o.action),
    ["create", "change", "unchanged", "skip"],
  );
  assert.equal(doc.objects[1]?.diff, "--- a\n+++ b\n");
  assert.equal(doc.objects[3]?.skippedReason, "capability Console is not enabled");
  assert.equal("diff" in (doc.objects[0] ?? {}), false, "no empty fields");
});

test("an update held by a maintenance window says why and until when", () => {
  const held = SyncWorkerStatus.fromPartial({
    actual: { version: "1.0.0", image: "/p1" },
    maintenance: { reason: "outside every maintenance window", until: new Date("2026-01-02T02:00:00Z") },
  });
  assert.equal(stateText(held), "Waiting: outside every maintenance window, until 2026-01-02T02:00:00Z");
});
