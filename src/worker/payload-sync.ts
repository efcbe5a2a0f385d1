import type { PayloadAccess, PayloadInfo } from "../payload/retrieval-port.js";
import type { KubeObject, PayloadUpdate } from "../payload/manifest.js";
import { runAll, summarizePreconditions, type Precondition, type PreconditionSummary } from "../policy/index.js";
import { checkPlan, planScope, type PlanDeps, type PreviewedImages } from "./planning/index.js";
import type { StatusWrapper } from "./reporter.js";
import type { ResourceApplier } from "./task-run.js";
import { NO_METRICS, type DesiredUpdate, type LoadPayloadStatus, type MetricsSink, type SyncWork } from "./types.js";
import { NO_EVENTS, NO_TRACING, accepts, asError, type Clock, type EventRecorder, type RiskAcceptance, type Tracing } from "../core/index.js";

export interface PayloadSyncDeps extends PlanDeps, PayloadAccess {
  readonly clock: Clock;
  readonly log: { info(msg: string): void };
  /** Where the seed's events go; none when absent. */
  readonly events?: EventRecorder;
  /** Checked before a new payload is accepted (skipped for the local payload). */
  readonly preconditions?: readonly Precondition[];
  /** Retrieve, load and precondition spans; none when absent. */
  readonly tracing?: Tracing;
  /** Payload load duration; none when absent. */
  readonly metrics?: MetricsSink;
  /** Takes the loaded payload's own settings (see ResourceApplier.forPayload); absent, there are none to check. */
  readonly applier?: ResourceApplier;
}

const q = (s: string): string => JSON.stringify(s);

/**
 * Retrieves, loads and verifies the payload unless it is the one already loaded (CVO `syncPayload`).
 * Returns the capabilities to keep enabled implicitly, and the newly accepted payload if one was loaded.
 */
export async function syncPayload(
  deps: PayloadSyncDeps,
  current: { readonly payload: PayloadUpdate | undefined; readonly verified: boolean; readonly previewed: PreviewedImages },
  work: SyncWork,
  reporter: StatusWrapper,
  signal: AbortSignal,
): Promise<{ implicit: readonly string[]; loaded?: PayloadUpdate }> {
  const implicit = work.capabilities.implicitlyEnabled;
  const acceptance: RiskAcceptance = { force: work.desired.force, named: work.acceptRisks ?? [] };
  let desired: DesiredUpdate = { ...work.desired };
  const report = (s: Omit<LoadPayloadStatus, "update" | "lastTransitionTime">): void =>
    reporter.reportPayload({ ...s, update: desired, lastTransitionTime: deps.clock.now() });
  const names = (): string => `version=${q(desired.version)} image=${q(desired.image)}`;

  if (current.payload && current.payload.release.image === desired.image) {
    if (!reporter.validPayloadStatus(desired)) {
      report({ step: "PayloadLoaded", message: `Payload loaded ${names()}`, verified: current.verified });
    }
    return { implicit };
  }

  const events = deps.events ?? NO_EVENTS;
  const retrieving = `Retrieving and verifying payload ${names()}`;
  events.event("Normal", "RetrievePayload", retrieving);
  report({ step: "RetrievePayload", message: retrieving, verified: false });
  const tracing = deps.tracing ?? NO_TRACING;
  const metrics = deps.metrics ?? NO_METRICS;
  const attributes = { "syncworker.payload.image": desired.image, "syncworker.payload.version": desired.version };
  const loadStarted = deps.clock.now().getTime();
  const loadSeconds = (): number => (deps.clock.now().getTime() - loadStarted) / 1000;
  let info: PayloadInfo;
  try {
    // A download's progress ("downloaded A of B bytes") shows in the load-payload status while it lasts.
    const progress = (text: string): void => report({ step: "RetrievePayload", message: `${retrieving}: ${text}`, verified: false });
    info = await tracing.span("payload retrieve", attributes, () =>
      deps.retriever.retrieve({ ...work.desired, acceptUnverified: accepts(acceptance, "ImageVerification") }, signal, progress),
    );
  } catch (err) {
    metrics.payloadLoad("failure", loadSeconds());
    const failure = asError(err);
    const message = `Retrieving payload failed ${names()} failure=${failure.message}`;
    events.event("Warning", "RetrievePayloadFailed", message);
    report({ step: "RetrievePayload", failure, message, verified: false });
    throw failure;
  }
  // Upstream records what a forced update was accepted despite, and shows it in the history.
  const acceptedRisks: string[] = [];
  if (info.verificationError) {
    const risk = errorChainText(info.verificationError);
    acceptedRisks.push(risk);
    events.event("Warning", "RetrievePayload", risk);
  }

  events.event("Normal", "LoadPayload", `Loading payload ${names()}`);
  let loaded: PayloadUpdate;
  try {
    loaded = await tracing.span("payload load", { ...attributes, "syncworker.payload.directory": info.directory }, async (span) => {
      const update = await deps.loadPayload(info, desired.image, signal);
      deps.applier?.forPayload?.(update);
      span.setAttributes({ "syncworker.payload.manifests": update.manifests.length, "syncworker.payload.hash": update.manifestHash });
      return update;
    });
    metrics.payloadLoad("success", loadSeconds());
  } catch (err) {
    metrics.payloadLoad("failure", loadSeconds());
    const failure = asError(err);
    const message = `Loading payload failed ${names()} failure=${failure.message}`;
    events.event("Warning", "LoadPayloadFailed", message);
    report({ step: "LoadPayload", failure, message, verified: info.verified });
    throw failure;
  }
  loaded.verifiedImage = info.verified;
  loaded.loadedAt = deps.clock.now();
  metrics.releaseLoaded(desired.image, creationTime(loaded.imageRef));

  if (!work.desired.version) {
    work.desired = { ...work.desired, version: loaded.release.version };
    desired = { ...desired, version: loaded.release.version };
  } else if (loaded.release.version !== work.desired.version) {
    const failure = new Error(`release image version ${loaded.release.version} does not match the expected upstream version ${work.desired.version}`);
    const message = `Verifying payload failed ${names()} failure=${failure.message}`;
    events.event("Warning", "VerifyPayloadVersionFailed", message);
    report({ step: "VerifyPayloadVersion", failure, message, verified: info.verified });
    throw failure;
  }

  // The payload is only accepted once its preconditions pass (or are forced through).
  const preconditions = deps.preconditions ?? [];
  let preconditionResults: PreconditionSummary["results"] = [];
  if (preconditions.length > 0 && !info.local) {
    const version = loaded.release.version;
    const summary = await tracing.span("payload preconditions", { ...attributes, "syncworker.payload.version": version }, async (span) => {
      const result = summarizePreconditions(await runAll(preconditions, { desiredVersion: version }, signal), acceptance);
      span.setAttributes({ "syncworker.preconditions.blocked": result.block, "syncworker.preconditions.error": result.error?.message });
      if (result.error && result.block) span.fail(result.error);
      return result;
    });
    preconditionResults = summary.results;
    if (summary.error && summary.block) {
      const message = `Preconditions failed for payload loaded ${names()}: ${summary.error.message}`;
      events.event("Warning", "PreconditionBlock", message);
      report({ step: "PreconditionChecks", failure: summary.error, message, verified: info.verified, preconditionResults });
      throw summary.error;
    }
    if (summary.error) {
      events.event("Warning", "PreconditionWarn", `precondition warning for payload loaded ${names()}: ${summary.error.message}`);
      acceptedRisks.push(summary.error.message);
    }
    events.event("Normal", "PreconditionsPassed", `preconditions passed for payload loaded ${names()}`);
  }

  // With blast-radius limits or an expected plan digest, the plan of this payload decides too (issue 17).
  const scope = planScope(loaded, current.payload, work.capabilities, work.overrides);
  const planned = await checkPlan(deps, loaded, scope, work, acceptance, current.previewed, signal);
  if (planned.failure) {
    const message = `Preconditions failed for payload loaded ${names()}: ${planned.failure.message}`;
    events.event("Warning", "PreconditionBlock", message);
    report({ step: "PreconditionChecks", failure: planned.failure, message, verified: info.verified, preconditionResults });
    throw planned.failure;
  }
  if (planned.risk) acceptedRisks.push(planned.risk);

  const loadedMessage = `Payload loaded ${names()} architecture=${q(loaded.architecture)}`;
  events.event("Normal", "PayloadLoaded", loadedMessage);
  report({ step: "PayloadLoaded", message: loadedMessage, verified: info.verified, preconditionResults, acceptedRisks: acceptedRisks.join("\n") });
  deps.log.info(`Payload loaded from ${desired.image} with hash ${loaded.manifestHash}, architecture ${loaded.architecture}`);
  return { implicit: scope.capabilities.implicitlyEnabled, loaded };
}

/** The release's creation time, as the CVO reads it from the `image-references` ImageStream; undefined when absent or unparsable. */
function creationTime(imageRef: KubeObject | undefined): Date | undefined {
  const text = imageRef?.metadata?.["creationTimestamp"];
  const at = typeof text === "string" ? new Date(text) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : undefined;
}

/** Every distinct message along an error's cause chain, one per line (verification errors wrap details). */
function errorChainText(err: Error): string {
  const lines: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (!lines.some((line) => line.includes(e.message))) lines.push(e.message);
  }
  return lines.join("\n");
}
