import { resolve } from "node:path";
import { Argument, Command, Option } from "commander";
import {
  compileRegistryAccess,
  compileFleetOptions,
  compileServeOptions,
  FLEET_FLAGS,
  integer,
  parseDuration,
  positiveNumber,
  PACKAGE_VERSION,
  RENDER_FLAGS,
  SERVE_FLAGS,
  ValueError,
  type FleetFlags,
  type RegistryFlags,
  type ServeOptions,
} from "../config/index.js";
import { RISK_NAMES, isRiskName, link, type RiskName } from "../core/index.js";
import { startService } from "../main.js";
import { goArch } from "../payload/index.js";
import { pushPayload, RegistryClient } from "../retrieval/registry/index.js";
import { defaultStateDir } from "../service/index.js";
import { OnDeadline, SyncWorkerStatus, type BlastRadiusLimits, type FleetClient, type SyncWorkerClient, type UpdateInput } from "@syncworker/client";
import { completionScript, SHELLS, type Shell } from "./completion.js";
import { connectFleet, DEFAULT_ADDRESS, DEFAULT_CONNECT_TIMEOUT, type ConnectOptions } from "./connect.js";
import { watchFleet } from "./fleet-watch.js";
import { diff } from "./diff.js";
import { CliError, DIFF_EXIT, EXIT_CODES_HELP, ExitCode, exitCodeOf, failureLine } from "./exit-codes.js";
import { payloadLocation } from "./image-arg.js";
import { render } from "./render.js";
import { addFlags, argParser, givenOptions, withRegistryFlags } from "./flag-table.js";
import { signPayload, type SignPayloadOptions } from "./sign.js";
import { reach } from "./reach.js";
import { document, type DataFormat } from "./output.js";
import { cancelHeadline, headline } from "./headline.js";
import { statusLines } from "./status-view.js";
import { notTaken } from "./update-outcome.js";
import { endWait, follow, timeoutOf } from "./wait.js";
import { watch } from "./watch.js";
import { terminalSafe } from "./terminal-text.js";

/** Runs `fn` with a client of the connection flags, once connected (see reach), closed afterwards even when `fn` fails. */
async function withClient<T>(o: ConnectOptions, fn: (client: SyncWorkerClient) => Promise<T>): Promise<T> {
  const client = await reach(o);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** Runs `fn` with a client of the fleet controller at the connection flags' address, once reached (see reach). */
async function withFleetClient<T>(o: ConnectOptions, fn: (client: FleetClient) => Promise<T>): Promise<T> {
  (await reach(o)).close();
  const client = connectFleet(o);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** `… | head` closes the pipe early; that is not an error, but what was cut off is unknown: exit with `code`. */
function exitOnClosedPipe(code: number): void {
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(code);
    throw err;
  });
}

/** The flags of `update` besides the connection and blast-radius ones. */
interface UpdateFlags {
  readonly image: string;
  readonly version: string;
  readonly force: boolean;
  readonly generation: number;
  readonly plan?: string;
  readonly acceptRisk: readonly RiskName[];
  readonly progressDeadline?: string;
  readonly totalDeadline?: string;
  readonly onDeadline: "fail" | "pause";
  readonly notBefore?: string;
  readonly wait: boolean;
  readonly timeout?: string;
}

/** The blast-radius flags of `update` and `diff`. */
interface LimitFlags {
  readonly maxDeletions?: number;
  readonly maxChangedPercent?: number;
}

/** The deadline flags of `update` as UpdateRequest fields; `--on-deadline` is sent only with a deadline or when not the default. */
function deadlinesOf(o: UpdateFlags): Pick<UpdateInput, "progressDeadline" | "totalDeadline" | "onDeadline"> {
  const duration = (option: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const ms = positiveNumber(option, parseDuration(option, text));
    return { seconds: Math.floor(ms / 1000), nanos: Math.round((ms % 1000) * 1e6) };
  };
  const progressDeadline = duration("progress-deadline", o.progressDeadline);
  const totalDeadline = duration("total-deadline", o.totalDeadline);
  return {
    ...(progressDeadline ? { progressDeadline } : {}),
    ...(totalDeadline ? { totalDeadline } : {}),
    onDeadline: o.onDeadline === "pause" ? OnDeadline.ON_DEADLINE_PAUSE : OnDeadline.ON_DEADLINE_UNSPECIFIED,
  };
}

/** An RFC 3339 time with its offset (`Z` or `±hh:mm`), or a usage error naming the flag. */
function instantOf(option: string, text: string): Date {
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) || Number.isNaN(at.getTime())) {
    throw new ValueError(option, `"${text}" is not an RFC 3339 time with an offset, like 2026-12-24T22:00:00Z`);
  }
  return at;
}

/** One `--accept-risk` value added to the ones before it. */
function riskName(text: string, previous: readonly RiskName[] | undefined): RiskName[] {
  if (!isRiskName(text)) throw new Error(`"${text}" is not a risk name; the names are ${RISK_NAMES.join(", ")}`);
  return [...(previous ?? []), text];
}

function limitsOf(o: LimitFlags): BlastRadiusLimits | undefined {
  if (o.maxDeletions === undefined && o.maxChangedPercent === undefined) return undefined;
  return { maxDeletions: o.maxDeletions, maxChangedPercent: o.maxChangedPercent };
}

async function serve(options: ServeOptions): Promise<void> {
  const service = await startService(compileServeOptions(options, Math.random, defaultStateDir()));
  await untilSignalled(
    () => service.stop(),
    [
      `listening on ${service.address}`,
      ...(service.adminAddress ? [`admin on ${service.adminAddress}`] : []),
      ...(service.metricsAddress ? [`metrics on http://${service.metricsAddress}/metrics`] : []),
    ],
  );
}

async function fleet(flags: FleetFlags): Promise<void> {
  const options = compileFleetOptions(flags);
  const { startFleet } = await import("../fleet-main.js");
  const running = await startFleet(options);
  await untilSignalled(
    () => running.stop(),
    [
      `fleet controller in namespace ${options.namespace}`,
      `listening on ${running.address}`,
      ...(running.adminAddress ? [`admin on ${running.adminAddress}`] : []),
    ],
  );
}

/** Prints `lines` and runs until SIGTERM or SIGINT, then `stop`; a stop that fails (state not saved) fails the exit code. */
async function untilSignalled(stop: () => Promise<void>, lines: readonly string[]): Promise<void> {
  await new Promise<void>((done, fail) => {
    const onSignal = (): void => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      stop().then(done, fail);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    // Announced only once the signals are handled: whoever reads the address may send SIGTERM at once, and an
    // unhandled one kills the process without the orderly stop.
    for (const line of lines) process.stdout.write(`${line}\n`);
  });
}

export function program(): Command {
  const cli = new Command("syncworker")
    .description("Keep a Kubernetes cluster at a desired release")
    .version(PACKAGE_VERSION, "-V, --version", "print the version")
    // Program flags only before the command: `update --version 1.2.0` is update's own flag.
    .enablePositionalOptions()
    // Commander's errors are thrown to main(), which prints one line and exits 2 (see exit-codes.ts).
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .addHelpText("afterAll", EXIT_CODES_HELP);
  const connection = [
    new Option("--address <host:port>", "syncworker service address").default(DEFAULT_ADDRESS),
    new Option("--connect-timeout <duration>", "give up (exit 4) when no connection is up within this long").default(DEFAULT_CONNECT_TIMEOUT),
    new Option("--tls", "connect with TLS, trusting the system's CAs (implied by --ca, --cert and --server-name)"),
    new Option("--ca <file>", "TLS: CA bundle (PEM) the server's certificate must chain to"),
    new Option("--cert <file>", "mTLS: client certificate (PEM); with --key"),
    new Option("--key <file>", "mTLS: private key (PEM) of --cert"),
    new Option("--server-name <name>", "TLS: the name the server's certificate must carry, if not the address's host"),
    new Option("--token <token>", "bearer token (default: $SYNCWORKER_TOKEN)"),
    new Option("--token-file <file>", "read the bearer token from this file"),
  ];
  const withConnection = (command: Command): Command => connection.reduce((c, option) => c.addOption(option), command);

  addFlags(withRegistryFlags(cli.command("serve")), SERVE_FLAGS)
    .description("run the service (against the embedded cluster unless --kubeconfig is given)")
    .action((_o, command: Command) => serve(givenOptions(command)));

  addFlags(cli.command("fleet"), FLEET_FLAGS)
    .description("run the fleet controller on a hub cluster: staged rollouts of one release to many members (ReleaseRollout, MemberCluster)")
    .action((_o, command: Command) => fleet(givenOptions(command)));

  addFlags(withRegistryFlags(cli.command("render")), RENDER_FLAGS)
    .description("print the manifests a payload would apply, in task order, without a server")
    .action(async (_o, command: Command) => {
      exitOnClosedPipe(0);
      await render(givenOptions(command), { stdout: (l) => process.stdout.write(`${l}\n`), stderr: (l) => process.stderr.write(`${l}\n`) });
    });

  withRegistryFlags(cli.command("sign-payload"))
    .description("sign a release image as the CVO verifies it: an atomic container signature claim for its digest, OpenPGP-signed")
    .argument("<image>", "the image's pull spec, by digest (a tag is resolved through the registry)")
    .requiredOption("--key <file>", "armored OpenPGP private key")
    .option("--passphrase-file <file>", "the key's passphrase, on the file's first line")
    .option("--store <dir>", "add sha256=<hex>/signature-N to this signature-store directory (serve it for --signature-store)")
    .option("--push", "add the signature to the registry's sha256-<hex>.sig tag", false)
    .action(async (image: string, o: SignPayloadOptions & RegistryFlags) => {
      const client = new RegistryClient(compileRegistryAccess(o));
      try {
        for (const line of await signPayload(image, o, client, new Date(), AbortSignal.timeout(120_000))) process.stdout.write(`${line}\n`);
      } finally {
        await client.close();
      }
    });

  withRegistryFlags(cli.command("push-payload"))
    .description("publish a payload directory as a release image (one layer of release-manifests/ and manifests/); prints its pull spec by digest")
    .argument("<dir>", "payload directory")
    .argument("<reference>", "where to push it: host[:port]/repository:tag")
    .option("--architecture <goarch>", "the image config's architecture", goArch(process.arch))
    .action(async (dir: string, reference: string, o: RegistryFlags & { architecture: string }) => {
      const client = new RegistryClient(compileRegistryAccess(o));
      try {
        process.stdout.write(`${await pushPayload(client, resolve(dir), reference, o.architecture, AbortSignal.timeout(600_000))}\n`);
      } finally {
        await client.close();
      }
    });

  withConnection(cli.command("update"))
    .description("set the desired release (exit 1, naming why on stderr, when the service refuses it or its payload does not load)")
    .requiredOption("--image <dir|ref>", "payload directory (or file:// URL), or a release image reference (by digest; a tag is resolved by the service)")
    .option("--version <version>", "expected release version (empty adopts the payload's)", "")
    .option("--force", "apply even if verification or preconditions fail (accepts every risk)", false)
    .option(
      "--accept-risk <name>",
      `apply even if the check of this name fails, recorded as an accepted risk; repeatable; one of ${RISK_NAMES.join(", ")}`,
      argParser(riskName),
      [],
    )
    .option("--generation <n>", "generation of the desired state", argParser(integer), 1)
    .option("--progress-deadline <duration>", "mark the update Failing when no manifest is applied for this long, e.g. 10m (default: the server's)")
    .option("--total-deadline <duration>", "mark the update Failing when it is not complete within this long, e.g. 2h (default: the server's)")
    .option("--not-before <time>", "apply nothing before this time (RFC 3339, e.g. 2026-12-24T22:00:00Z); the status says until when")
    .addOption(new Option("--on-deadline <action>", "when a deadline passes: stay Failing and retry, or also pause").choices(["fail", "pause"]).default("fail"))
    .option("--plan <digest>", "apply only if the plan is still this one (a `syncworker diff` plan digest; unless --accept-risk PlanDigest)")
    .option("--max-deletions <n>", "refuse the update if it would delete more objects (unless --accept-risk BlastRadius)", argParser(integer))
    .option("--max-changed-percent <p>", "refuse the update if it would change more of its payload's objects, in % (unless --accept-risk BlastRadius)", Number)
    .option("--wait", "then wait until the release is completely applied (exit 1 if it is not taken, 3 after --timeout)", false)
    .option("--timeout <duration>", "with --wait: give up after this long (e.g. 30m), counted from the start (default: wait for ever)")
    .action(async (o: ConnectOptions & LimitFlags & UpdateFlags) => {
      if (o.timeout !== undefined && !o.wait) throw new ValueError("timeout", "applies only with --wait");
      const timeout = timeoutOf(o.timeout);
      await withClient(o, async (client) => {
        const taken = await client.update({
          generation: o.generation,
          desired: { version: o.version, image: payloadLocation(o.image), force: o.force },
          limits: limitsOf(o),
          expectedPlanDigest: o.plan ?? "",
          acceptRisks: [...o.acceptRisk],
          ...deadlinesOf(o),
          ...(o.notBefore === undefined ? {} : { notBefore: instantOf("not-before", o.notBefore) }),
        });
        const refused = notTaken(taken);
        // The release the Update loaded, by image: a version alone may name the one it replaces.
        const target = { version: taken.actual?.version ?? "", image: taken.actual?.image || undefined };
        const last = o.wait && refused === undefined ? ((await follow(client, target, timeout?.signal ?? new AbortController().signal)) ?? taken) : taken;
        // The status is printed in every case: where the release stands is what a script reads next.
        process.stdout.write(`${terminalSafe(JSON.stringify(SyncWorkerStatus.toJSON(last), null, 2), true)}\n`);
        if (refused !== undefined) throw new CliError(ExitCode.Failed, refused);
        if (o.wait) endWait(last, target, timeout);
      });
    });

  withConnection(cli.command("diff"))
    .description("preview what an update would change in the cluster, as kubectl diff (exit 1: changes, 0: none, 2: error, 3 and 4 as for every command)")
    .requiredOption(
      "--image <dir|ref>",
      "payload directory (or file:// URL), or a release image reference (a tag is resolved to its digest by the service, as for update)",
    )
    .option("--version <version>", "expected release version (empty adopts the payload's)", "")
    .option("--max-deletions <n>", "report the plan as over this limit of deletions", argParser(integer))
    .option("--max-changed-percent <p>", "report the plan as over this limit of changes, in % of its payload", Number)
    .option("--show-skipped", "also list the objects a filter excludes, naming it", false)
    .addOption(
      new Option("-o, --output <format>", "text, as kubectl diff; json: every object with its action, the plan digest and the release previewed")
        .choices(["text", "json"])
        .default("text"),
    )
    .action(async (o: ConnectOptions & LimitFlags & { image: string; version: string; showSkipped: boolean; output: "text" | "json" }) => {
      exitOnClosedPipe(DIFF_EXIT.changes);
      try {
        const input = { desired: { version: o.version, image: payloadLocation(o.image) }, limits: limitsOf(o) };
        process.exitCode = await withClient(o, (client) =>
          diff(client, { input, showSkipped: o.showSkipped, output: o.output }, (text) => process.stdout.write(terminalSafe(text, true))),
        );
      } catch (err) {
        // A failure must not read as "changes" (1): diff(1) and kubectl diff exit 2 and above for errors.
        throw exitCodeOf(err) === ExitCode.Failed ? new CliError(DIFF_EXIT.error, failureLine(err, "diff"), { cause: err }) : err;
      }
    });

  withConnection(cli.command("watch"))
    .description("stream status: a progress bar on a terminal, JSON lines otherwise")
    .option(
      "--until-complete [version]",
      "exit once the release (or the given version) is completely applied; exit 1 if it is not taken (its load failed or was refused)",
    )
    .option("--timeout <duration>", "with --until-complete: give up after this long (e.g. 30m), exit 3 (default: wait for ever)")
    .option("--since-revision <n>", "resume after this revision", argParser(integer), 0)
    .option("--fleet <rollout>", "watch a ReleaseRollout on the fleet controller at --address (syncworker fleet): stages, members by state, blockers")
    .option("--namespace <name>", "with --fleet: the rollout's namespace (default: the controller's)", "")
    .action(async (o: ConnectOptions & { untilComplete?: string | true; timeout?: string; sinceRevision: number; fleet?: string; namespace: string }) => {
      if (o.timeout !== undefined && o.untilComplete === undefined) throw new ValueError("timeout", "applies only with --until-complete");
      const timeout = timeoutOf(o.timeout);
      const controller = new AbortController();
      process.once("SIGINT", () => controller.abort());
      const { signal, dispose } = link(controller.signal, timeout?.signal);
      if (o.fleet !== undefined) {
        if (typeof o.untilComplete === "string") throw new ValueError("until-complete", "takes no version with --fleet: the rollout names its release");
        const rollout = o.fleet;
        const until = o.untilComplete === true;
        const last = await withFleetClient(o, (client) =>
          watchFleet(client, { rollout, namespace: o.namespace, untilDone: until, signal, out: process.stdout }),
        ).finally(dispose);
        if (controller.signal.aborted) process.exitCode = ExitCode.Interrupted;
        else if (until && timeout?.signal.aborted) throw new CliError(ExitCode.TimedOut, `rollout ${rollout} not done within --timeout ${o.timeout ?? ""}`);
        else if (until && last?.phase !== "Completed") throw new CliError(ExitCode.Failed, `rollout ${rollout} ended ${last?.phase ?? "without a status"}`);
        return;
      }
      const untilComplete = o.untilComplete === true ? "" : o.untilComplete;
      const last = await withClient(o, (client) => watch(client, { untilComplete, sinceRevision: o.sinceRevision, signal, out: process.stdout })).finally(
        dispose,
      );
      // A script must not read a watch stopped by hand as a completed release.
      if (controller.signal.aborted) process.exitCode = ExitCode.Interrupted;
      else if (untilComplete !== undefined) endWait(last, { version: untilComplete }, timeout);
    });

  withConnection(cli.command("status"))
    .description("print the current status: a summary for people, or the whole status with -o json|yaml")
    .addOption(new Option("-o, --output <format>", "text, or json or yaml for programs").choices(["text", "json", "yaml"]).default("text"))
    .action(async (o: ConnectOptions & { output: "text" | DataFormat }) => {
      const status = await withClient(o, (client) => client.getStatus());
      const text = o.output === "text" ? `${statusLines(status, new Date()).join("\n")}\n` : document(SyncWorkerStatus.toJSON(status), o.output);
      process.stdout.write(terminalSafe(text, true));
    });

  withConnection(cli.command("notify"))
    .description("wake the worker because a managed resource changed")
    .option("--message <text>", "why", "resource activity")
    .action(async (o: ConnectOptions & { message: string }) => {
      const queued = await withClient(o, (client) => client.notify(o.message));
      process.stdout.write(queued ? "notified\n" : "a notification was already pending\n");
    });

  withConnection(cli.command("pause"))
    .description("pause the update at a task boundary: running tasks finish, no new task starts, the position is kept")
    .option("--reason <text>", "why; shown in the status", "")
    .action(async (o: ConnectOptions & { reason: string }) => {
      const status = await withClient(o, (client) => client.pauseUpdate(o.reason));
      process.stdout.write(`${terminalSafe(headline(status))}\n`);
    });

  withConnection(cli.command("cancel"))
    .description("drop the desired release while none of it was applied (the release in effect stays); once applying started, exit 1 naming what was applied")
    .option("--rollback", "once applying started: update back to the last completed release instead (same minor version only)", false)
    .action(async (o: ConnectOptions & { rollback: boolean }) => {
      const { status, rollbackStarted } = await withClient(o, (client) => client.cancelUpdate(o.rollback));
      process.stdout.write(`${terminalSafe(cancelHeadline(status, rollbackStarted))}\n`);
    });

  withConnection(cli.command("resume"))
    .description("resume a paused update from where it stood")
    .action(async (o: ConnectOptions) => {
      const status = await withClient(o, (client) => client.resumeUpdate());
      process.stdout.write(`${terminalSafe(headline(status))}\n`);
    });

  cli
    .command("completion")
    .description("print the shell completion script: source <(syncworker completion bash), or zsh after compinit")
    .addArgument(new Argument("<shell>", "bash or zsh").choices(SHELLS))
    .action((shell: Shell) => {
      process.stdout.write(completionScript(cli, shell));
    });

  withConnection(cli.command("version"))
    .description("print the version of this client and of the server at --address, as kubectl version does")
    .option("--client", "the client's only; do not contact a server", false)
    .action(async (o: ConnectOptions & { client: boolean }) => {
      process.stdout.write(`Client Version: ${PACKAGE_VERSION}\n`);
      if (o.client) return;
      const server = await withClient(o, (client) => client.serverVersion());
      process.stdout.write(`Server Version: ${terminalSafe(server || "unknown (the server does not report it)")}\n`);
    });
  return cli;
}

export async function main(argv: readonly string[]): Promise<void> {
  try {
    await program().parseAsync([...argv]);
  } catch (caught) {
    const command = argv[2] === undefined || argv[2].startsWith("-") ? "" : argv[2];
    const line = failureLine(caught, command);
    // An error's text may quote the server (a registry's error, a refused request's field).
    if (line) process.stderr.write(`syncworker: ${terminalSafe(line)}\n`);
    process.exitCode = exitCodeOf(caught);
  }
}
