/**
 * The exit codes of every `syncworker` command, in one place: what `--help` prints and docs/cli-exit-codes.md
 * documents. A script tells "it failed or was refused" (1) from "it was called wrong" (2), "it did not finish in
 * time" (3) and "nothing answered" (4) without parsing messages; the message is one line on stderr either way.
 * `diff` keeps diff(1)'s 0 and 1 (no changes, changes), so where another command exits 1 it exits 2.
 */
import { CommanderError } from "commander";
import { Code, SyncWorkerError } from "@syncworker/client";
import { ValueError } from "../config/index.js";

export const ExitCode = {
  /** The command did what it was asked: the call succeeded, the release was taken, or (waiting) it completed. */
  Ok: 0,
  /** Failed or refused: the server refused the call, the release did not load or was refused at its preconditions. */
  Failed: 1,
  /** Called wrong: an unknown command or flag, a flag missing or with a malformed value. */
  Usage: 2,
  /** `--timeout` passed before the release completed, or a call ran past its deadline. */
  TimedOut: 3,
  /** No connection to `--address` within `--connect-timeout`: refused, no answer, TLS on one side only. */
  Unreachable: 4,
  /** Stopped by Ctrl-C (SIGINT) before it was done: 128 + 2, what a shell reports for a process SIGINT ended. */
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Exit codes of `syncworker diff`, as `kubectl diff` and diff(1) use them; timeouts and unreachable servers keep 3 and 4. */
export const DIFF_EXIT = { noChanges: ExitCode.Ok, changes: 1, error: ExitCode.Usage } as const;

/** The scheme, printed after every command's `--help`. */
export const EXIT_CODES_HELP = `
Exit codes (docs/cli-exit-codes.md):
  0  done; diff: no changes
  1  failed or refused; diff: changes
  2  usage error; diff: also any failure
  3  timed out (--timeout, or a call's deadline)
  4  server unreachable within --connect-timeout
  130  stopped by Ctrl-C (watch)`;

/** A command's failure with its exit code; the message is the one line printed on stderr. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CliError";
  }
}

/** The exit code for anything a command throws. */
export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  if (err instanceof ValueError) return ExitCode.Usage;
  if (err instanceof SyncWorkerError && err.code === Code.DeadlineExceeded) return ExitCode.TimedOut;
  return ExitCode.Failed;
}

/** The gRPC name of a code, as grpcurl and the other gRPC tools print it (INVALID_ARGUMENT, CANCELLED). */
function codeName(code: Code): string {
  return code === Code.Canceled ? "CANCELLED" : Code[code].replace(/(?<=[a-z])(?=[A-Z])/g, "_").toUpperCase();
}

/**
 * The one line naming why `err` ended the command; "" when there is nothing to add (help or the version was
 * printed). `command` is the subcommand run, for the hint after a usage error.
 */
export function failureLine(err: unknown, command: string): string {
  if (err instanceof CommanderError) {
    // commander prints help itself when it is asked for or a command is missing ("(outputHelp)").
    if (err.exitCode === 0 || err.code === "commander.help") return "";
    return `${err.message.replace(/^error: /, "")} (see 'syncworker${command ? ` ${command}` : ""} --help')`;
  }
  const message = err instanceof SyncWorkerError ? `${codeName(err.code)}: ${err.rawMessage}` : err instanceof Error ? err.message : String(err);
  return message.replace(/\s*\n\s*/g, "; ");
}
