/**
 * Fails when modules under src/ import one another in a circle, counting type-only imports: import-x/no-cycle
 * (in the ESLint config) skips those, yet a type circle still shows a type in the wrong file. Run by `npm run lint`.
 */
import { dirname, relative } from "node:path";
import ts from "typescript";

const root = dirname(import.meta.dirname);
const configFile = ts.readConfigFile(`${root}/tsconfig.json`, (path) => ts.sys.readFile(path));
const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const sources = config.fileNames.filter((file) => relative(root, file).startsWith("src/") && !relative(root, file).startsWith("src/gen/"));

const imports = new Map<string, string[]>();
for (const file of sources) {
  const info = ts.preProcessFile(ts.sys.readFile(file) ?? "", true, false);
  const targets = info.importedFiles
    .map((ref) => ts.resolveModuleName(ref.fileName, file, config.options, ts.sys).resolvedModule?.resolvedFileName)
    .filter((target): target is string => target !== undefined && sources.includes(target));
  imports.set(file, targets);
}

// Tarjan's strongly connected components: every component of more than one module is a circle.
let next = 0;
const index = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const circles: string[][] = [];
function visit(file: string): void {
  index.set(file, next);
  low.set(file, next++);
  stack.push(file);
  for (const target of imports.get(file) ?? []) {
    if (!index.has(target)) {
      visit(target);
      low.set(file, Math.min(low.get(file)!, low.get(target)!));
    } else if (stack.includes(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
  }
  if (low.get(file) !== index.get(file)) return;
  const component: string[] = [];
  let member: string | undefined;
  do {
    member = stack.pop()!;
    component.push(relative(root, member));
  } while (member !== file);
  if (component.length > 1) circles.push(component.sort());
}
for (const file of sources) if (!index.has(file)) visit(file);

for (const circle of circles) console.error(`import cycle: ${circle.join(" ↔ ")}`);
process.exitCode = circles.length > 0 ? 1 : 0;
