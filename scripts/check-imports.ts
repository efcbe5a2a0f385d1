/**
 * The layering of src/, checked on every import, type-only ones included (import-x/no-cycle in the ESLint config
 * skips those, yet a type circle still shows a type in the wrong file). Run by `npm run lint`; fails naming file,
 * line and rule:
 *
 * - `no-cycle`: modules under src/ that import one another in a circle.
 * - `allowed-folders`: a top-level folder of src/ (or main.ts) importing a folder its row of {@link ALLOWED} does not
 *   list. The table is the layering as it is: a new arrow is a decision, made here.
 * - `forbidden-modules`: a folder importing a package or built-in its row of {@link FORBIDDEN_MODULES} names: src/core
 *   takes only `node:` built-ins; payload/ reads through an injected fs and leaves disk, network, signatures and
 *   threads to retrieval/; the pure cores take no gRPC and no Kubernetes client.
 *
 * `--observed` prints which folders import which today, to compare with the table.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";

/** For each top-level folder of src/ (main.ts: the composition root), the other folders it may import. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  gen: [],
  payload: ["core"],
  retrieval: ["core", "payload", "status"],
  graph: ["core", "payload"],
  policy: ["core", "payload"],
  readiness: ["core", "payload", "worker"],
  worker: ["core", "graph", "payload", "policy"],
  status: ["core", "worker"],
  events: ["core", "status", "worker"],
  // The fleet's planner and controller reach the hub and the members through ports: no client of either here.
  fleet: ["core"],
  // The live page runs in the browser: it shares only the API's JSON with the service, no code.
  page: [],
  config: ["core", "graph", "payload", "policy", "retrieval", "status"],
  telemetry: ["api", "cluster", "config", "core", "events", "fleet", "payload", "policy", "status", "worker"],
  service: ["core", "graph", "payload", "policy", "status", "worker"],
  cluster: ["api", "config", "core", "fleet", "payload", "policy", "readiness", "service", "worker"],
  api: ["config", "core", "fleet", "gen", "policy", "service", "status", "worker"],
  cli: ["config", "core", "fleet-main.ts", "graph", "main.ts", "payload", "retrieval", "service", "status"],
  "fleet-main.ts": ["api", "cluster", "config", "core", "fleet", "service", "status", "telemetry"],
  "main.ts": ["api", "cluster", "config", "core", "events", "payload", "policy", "readiness", "retrieval", "service", "status", "telemetry"],
};

const PURE_CORE: readonly (string | RegExp)[] = [/^@grpc\//, "@kubernetes/client-node"];

/** For each folder, the modules (exact names, or patterns) it must not import; a folder not listed may import any. */
export const FORBIDDEN_MODULES: Readonly<Record<string, readonly (string | RegExp)[]>> = {
  // Only node: built-ins: the shared vocabulary every folder imports would otherwise pull packages into all of them.
  core: [/^(?!node:)/],
  page: [/^node:/, /^@grpc\//, "@kubernetes/client-node"],
  payload: [...PURE_CORE, "node:fs", "node:fs/promises", "undici", "openpgp", "node:worker_threads"],
  graph: PURE_CORE,
  policy: PURE_CORE,
  readiness: PURE_CORE,
  worker: PURE_CORE,
  status: PURE_CORE,
  fleet: [...PURE_CORE, "@syncworker/client", /^node:/],
};

export interface ImportRules {
  readonly allowed: Readonly<Record<string, readonly string[]>>;
  readonly forbiddenModules: Readonly<Record<string, readonly (string | RegExp)[]>>;
}

/** One import of a module under src/: where it is, what it names and what that resolves to. */
interface ImportEdge {
  readonly line: number;
  readonly specifier: string;
  /** The resolved file when it lies under src/, else undefined (a package or a built-in). */
  readonly target: string | undefined;
}

/** The top-level folder of src/ a path relative to src/ lies in; a file directly under src/ is its own row. */
function folderOf(pathInSrc: string): string {
  const [first] = pathInSrc.split("/");
  return first ?? pathInSrc;
}

function sourcesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourcesUnder(path));
    else if (/\.(m|c)?ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(path);
  }
  return files.sort();
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, "tsconfig.json");
  if (!existsSync(configPath))
    return { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, allowImportingTsExtensions: true, noEmit: true };
  const configFile = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  return ts.parseJsonConfigFileContent(configFile.config, ts.sys, root).options;
}

function lineAt(text: string, pos: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < pos; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Every import of every module under `root`/src, type-only ones included. */
function importGraph(root: string): Map<string, ImportEdge[]> {
  const src = join(root, "src");
  const options = compilerOptions(root);
  const sources = sourcesUnder(src);
  const known = new Set(sources);
  const graph = new Map<string, ImportEdge[]>();
  for (const file of sources) {
    const text = readFileSync(file, "utf8");
    const info = ts.preProcessFile(text, true, true);
    graph.set(
      file,
      info.importedFiles.map((ref) => {
        const resolved = ts.resolveModuleName(ref.fileName, file, options, ts.sys).resolvedModule?.resolvedFileName;
        return { line: lineAt(text, ref.pos), specifier: ref.fileName, target: resolved !== undefined && known.has(resolved) ? resolved : undefined };
      }),
    );
  }
  return graph;
}

/** Tarjan's strongly connected components: every component of more than one module is a circle. */
function circles(graph: Map<string, ImportEdge[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const { target } of graph.get(file) ?? []) {
      if (target === undefined) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const matches = (pattern: string | RegExp, specifier: string): boolean => (typeof pattern === "string" ? pattern === specifier : pattern.test(specifier));

/**
 * The violations of the layering in the tree at `root` (its src/, resolved with its tsconfig.json when it has one),
 * each `path:line: rule: message`, sorted. src/gen is generated: its own imports are held to no table.
 */
export function checkImports(root: string, rules: ImportRules = { allowed: ALLOWED, forbiddenModules: FORBIDDEN_MODULES }): string[] {
  const src = join(root, "src");
  const graph = importGraph(root);
  const rel = (file: string): string => relative(root, file).split(sep).join("/");
  const inSrc = (file: string): string => relative(src, file).split(sep).join("/");
  const errors: string[] = [];
  for (const [file, edges] of graph) {
    const from = folderOf(inSrc(file));
    if (from === "gen") continue;
    const allowed = rules.allowed[from];
    for (const edge of edges) {
      const where = `${rel(file)}:${edge.line}`;
      if (edge.target === undefined) {
        const pattern = (rules.forbiddenModules[from] ?? []).find((p) => matches(p, edge.specifier));
        if (pattern !== undefined) errors.push(`${where}: forbidden-modules: src/${from} must not import ${JSON.stringify(edge.specifier)}`);
        continue;
      }
      const to = folderOf(inSrc(edge.target));
      if (to === from) continue;
      if (allowed === undefined) errors.push(`${where}: allowed-folders: src/${from} has no row in the ALLOWED table (imports src/${to})`);
      else if (!allowed.includes(to)) errors.push(`${where}: allowed-folders: src/${from} may not import src/${to} (${edge.specifier})`);
    }
  }
  for (const circle of circles(graph)) {
    const members = new Set(circle);
    for (const file of circle) {
      const edge = graph.get(file)!.find((e) => e.target !== undefined && members.has(e.target));
      errors.push(`${rel(file)}:${edge?.line ?? 1}: no-cycle: import cycle ${circle.map(rel).join(" ↔ ")}`);
    }
  }
  return errors.sort();
}

/** Which folders import which in the tree at `root`: the ALLOWED table the code implies. */
export function observedFolders(root: string): Record<string, string[]> {
  const src = join(root, "src");
  const observed: Record<string, Set<string>> = {};
  for (const [file, edges] of importGraph(root)) {
    const from = folderOf(relative(src, file).split(sep).join("/"));
    observed[from] ??= new Set();
    for (const { target } of edges) {
      const to = target && folderOf(relative(src, target).split(sep).join("/"));
      if (to && to !== from) observed[from].add(to);
    }
  }
  return Object.fromEntries(Object.entries(observed).map(([from, to]) => [from, [...to].sort()]));
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const root = join(import.meta.dirname, "..");
  if (process.argv.includes("--observed")) {
    for (const [from, to] of Object.entries(observedFolders(root)).sort()) console.log(`${from}: ${to.join(", ")}`);
  } else {
    const errors = checkImports(root);
    for (const error of errors) console.error(error);
    process.exitCode = errors.length > 0 ? 1 : 0;
  }
}
