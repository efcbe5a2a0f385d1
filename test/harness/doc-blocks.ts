/**
 * The fenced code blocks of the Markdown docs and the markers that say whether the docs test runs them
 * (docs/README.md states the convention). A shell block must be marked, on the last non-blank line before its fence:
 *
 *   <!-- docs-test: run [in-checkout] [output-below] [with-registry] [tier=T,…] [with-server[: SERVE ARGS]] -->
 *   <!-- docs-test: skip REASON -->
 *
 * `console` blocks are commands (`$ ` lines) each followed by the output they must print; `sh` blocks are scripts.
 */

import { TIERS, type Tier } from "./tiers.js";

const isTier = (name: string): name is Tier => (TIERS as readonly string[]).includes(name);

/** Languages whose blocks are commands: each needs a marker. */
export const SHELL_LANGUAGES: ReadonlySet<string> = new Set(["sh", "bash", "shell", "console", "zsh"]);

export interface RunMarker {
  readonly kind: "run";
  /** Arguments of a `syncworker serve` the test starts at the default address before the block; undefined: none. */
  readonly serverArgs: readonly string[] | undefined;
  /** Runs in the checkout itself (where `npm ci` was run), not in a scratch directory; `npm ci` is not run again. */
  readonly inCheckout: boolean;
  /** The tiers of scripts/setup.sh whose tools the block uses: it is skipped when the user opted out of one. */
  readonly tiers: readonly Tier[];
  /** Starts a registry at 127.0.0.1:5000 (Debian's docker-registry) before the block. */
  readonly withRegistry: boolean;
  /** The next `text` block is the output this one must print (its lines, in order; `…` matches anything). */
  readonly outputBelow: boolean;
}

export interface SkipMarker {
  readonly kind: "skip";
  readonly reason: string;
}

export interface DocBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly body: string;
  readonly marker: RunMarker | SkipMarker | undefined;
  /** Problems with the block or its marker; a test fails on any. */
  readonly problems: readonly string[];
}

const MARKER = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;
const FENCE = /^(`{3,}|~{3,})\s*([^\s`]*)/;

/** The fenced blocks of one Markdown text, with their markers and problems. */
export function parseBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split("\n");
  const blocks: DocBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = FENCE.exec(lines[i] ?? "");
    if (!open) {
      i++;
      continue;
    }
    const [, fence = "", lang = ""] = open;
    const start = i;
    const body: string[] = [];
    i++;
    while (i < lines.length && !(lines[i] ?? "").startsWith(fence)) body.push(lines[i++] ?? "");
    i++;
    blocks.push(classify(file, start + 1, lang, body.join("\n"), markerText(lines, start)));
  }
  return blocks;
}

/** The marker on the last non-blank line before line `fence`, if that line is one. */
function markerText(lines: readonly string[], fence: number): string | undefined {
  let j = fence - 1;
  while (j >= 0 && (lines[j] ?? "").trim() === "") j--;
  return MARKER.exec((lines[j] ?? "").trim())?.[1];
}

function classify(file: string, line: number, lang: string, body: string, text: string | undefined): DocBlock {
  const problems: string[] = [];
  const block = (marker: RunMarker | SkipMarker | undefined): DocBlock => ({ file, line, lang, body, marker, problems });
  if (lang === "") problems.push("a fenced block without a language: name one (sh, console, text, yaml, …)");
  const shell = SHELL_LANGUAGES.has(lang);
  if (text === undefined) {
    if (shell) problems.push(`a ${lang} block without a docs-test marker: mark it <!-- docs-test: run --> or <!-- docs-test: skip REASON -->`);
    return block(undefined);
  }
  if (!shell) problems.push(`a docs-test marker on a ${lang || "plain"} block: only shell blocks (${[...SHELL_LANGUAGES].join(", ")}) are run`);
  const [, verb = "", rest = ""] = /^(\S*)\s*(.*)$/.exec(text) ?? [];
  if (verb === "skip") {
    if (rest === "") problems.push("docs-test: skip needs a reason");
    return block({ kind: "skip", reason: rest });
  }
  if (verb !== "run") {
    problems.push(`docs-test: "${verb}" is neither run nor skip`);
    return block(undefined);
  }
  return block(parseRun(rest, problems));
}

const RUN_OPTIONS: ReadonlySet<string> = new Set(["in-checkout", "output-below", "with-registry"]);

/** `with-server[: ARGS]`, `in-checkout`, `output-below`, `with-registry`, `tier=A,B`; the server's arguments run to the end of the marker. */
function parseRun(options: string, problems: string[]): RunMarker {
  let serverArgs: string[] | undefined;
  let rest = options;
  const server = /(?:^|\s)with-server(?::\s*(.*))?$/.exec(rest);
  if (server) {
    serverArgs = (server[1] ?? "").split(/\s+/).filter(Boolean);
    rest = rest.slice(0, server.index);
  }
  const words = rest.split(/\s+/).filter(Boolean);
  const named = words.filter((w) => w.startsWith("tier=")).flatMap((w) => w.slice("tier=".length).split(","));
  const tiers = named.filter(isTier);
  for (const t of named) if (!isTier(t)) problems.push(`docs-test: "${t}" is not a tier of scripts/setup.sh (${TIERS.join(", ")})`);
  for (const w of words) if (!RUN_OPTIONS.has(w) && !w.startsWith("tier=")) problems.push(`docs-test: unknown run option "${w}"`);
  return {
    kind: "run",
    serverArgs,
    inCheckout: words.includes("in-checkout"),
    outputBelow: words.includes("output-below"),
    withRegistry: words.includes("with-registry"),
    tiers,
  };
}

export interface ConsoleCommand {
  readonly command: string;
  /** The lines the command must print, in order (others may come between); `…` matches any text. */
  readonly expected: readonly string[];
}

/** A console block's commands (`$ ` lines; a line ending in `\` continues on the next) and their shown output. */
export function parseConsole(body: string): ConsoleCommand[] {
  const commands: { command: string; expected: string[] }[] = [];
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.startsWith("$ ")) {
      let command = line.slice(2);
      while (command.endsWith("\\") && i + 1 < lines.length) command = `${command.slice(0, -1)}\n${lines[++i] ?? ""}`;
      commands.push({ command, expected: [] });
    } else if (line.trim() !== "") {
      const last = commands.at(-1);
      if (!last) throw new Error(`console block starts with output, not a "$ " command: ${line}`);
      last.expected.push(line);
    }
  }
  return commands;
}

/** The commands a block runs, for counting: a console block's `$ ` lines, a script's non-comment lines. */
export function commandCount(block: DocBlock): number {
  if (block.lang === "console") return parseConsole(block.body).length;
  return block.body.split("\n").filter((l) => l.trim() !== "" && !l.trim().startsWith("#") && !/^\s/.test(l) && !l.trim().startsWith(")")).length;
}

/**
 * Where the expected lines are missing from `actual`: each expected line must match a later line than the one before
 * it; `…` matches any text within a line, and a line that is only `…` matches nothing in particular. Undefined: all found.
 */
export function missingLines(expected: readonly string[], actual: string): string | undefined {
  const lines = actual.split("\n").map((l) => l.trimEnd());
  let at = 0;
  for (const want of expected) {
    if (want.trim() === "…") continue;
    const pattern = new RegExp(`^${want.trimEnd().split("…").map(escapeRegExp).join(".*")}$`);
    const found = lines.findIndex((l, n) => n >= at && pattern.test(l));
    if (found < 0) return want;
    at = found + 1;
  }
  return undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
