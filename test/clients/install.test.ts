// The clients as other projects get them: `npm run release:clients` builds the three artifacts, and each is
// installed into a new project in a temporary directory, outside the repository, the way its ecosystem installs
// it; that project's copy of the update-and-watch example then completes an update on one real server.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { lastLine, runCommand } from "../harness/command.js";
import { REPO_ROOT, startServer, type ServerProcess } from "../harness/server.js";
import { PYTHON } from "../harness/tools.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("go", "clients");

/** The clients' one version (scripts/release-clients.sh checks that pyproject.toml agrees). */
const VERSION = (JSON.parse(await readFile(join(REPO_ROOT, "clients/ts/package.json"), "utf8")) as { version: string }).version;
const GO_MODULE = "github.com/syncworker/syncworker/clients/go";

let scratch: string;
let release: string;
let server: ServerProcess;

before(
  async () => {
    scratch = await mkdtemp(join(tmpdir(), "syncworker-clients-install-"));
    release = join(scratch, "release");
    // `npm run release:clients -- OUT`, as docs/api.md says, into a directory of this run's own.
    await runCommand("npm", ["run", "--silent", "release:clients", "--", release], { cwd: REPO_ROOT, timeoutMs: 480_000 });
    server = await startServer(["--reconcile-interval", "60s"]);
  },
  { timeout: 540_000 },
);

after(async () => {
  await rm(scratch, { recursive: true, force: true });
  if (server) assert.equal(await server.stop(), 0);
});

/** A new, empty project directory for one client, beside (not inside) the release. */
async function project(name: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir);
  return dir;
}

const flags = (version: string): string[] => [
  "--address",
  server.address,
  "--image",
  join(REPO_ROOT, `examples/payloads/demo-${version}`),
  "--version",
  version,
];
const COMPLETED = /^completed (\d+)\/\1$/;

/**
 * The install command of a client's row in the Clients table of docs/api.md, as words; it must be the one this file runs,
 * so docs/api.md cannot name an artifact or a version that the release does not make.
 */
async function readmeInstall(client: "TypeScript" | "Go" | "Python", expected: string): Promise<string[]> {
  const row = (await readFile(join(REPO_ROOT, "docs/api.md"), "utf8")).split("\n").find((line) => line.startsWith(`| ${client} |`));
  assert.ok(row, `docs/api.md's Clients table has a ${client} row`);
  // Columns: client, where, install, use.
  assert.equal(row.split("|")[3]?.trim(), `\`${expected}\``, `docs/api.md's install line for ${client}`);
  return expected.split(" ");
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

test("the release holds the three artifacts, and SHA256SUMS the digest of each file", async () => {
  const files = await filesUnder(release);
  for (const artifact of [
    `npm/syncworker-client-${VERSION}.tgz`,
    `python/syncworker_client-${VERSION}-py3-none-any.whl`,
    `python/syncworker_client-${VERSION}.tar.gz`,
    `go/${GO_MODULE}/@v/v${VERSION}.zip`,
  ]) {
    assert.ok(files.includes(artifact), `${artifact} in ${files.join(", ")}`);
  }
  const sums = new Map(
    (await readFile(join(release, "SHA256SUMS"), "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => {
        const [digest, file] = line.split(/ +/) as [string, string];
        return [file, digest];
      }),
  );
  assert.deepEqual(
    [...sums.keys()].sort(),
    files.filter((f) => f !== "SHA256SUMS"),
  );
  for (const [file, digest] of sums)
    assert.equal(
      createHash("sha256")
        .update(await readFile(join(release, file)))
        .digest("hex"),
      digest,
      file,
    );
});

test(
  "TypeScript: the npm tarball, installed as docs/api.md says into a new project, type-checks its import and runs the example",
  { timeout: 300_000 },
  async () => {
    const dir = await project("ts-app");
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "syncworker-client-user", private: true, type: "module" }));
    // The same TypeScript and Node types the repository uses; the client's peers (grpc-js, protobuf) come with it.
    const { devDependencies: dev } = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    const tarball = `syncworker-client-${VERSION}.tgz`;
    await copyFile(join(release, "npm", tarball), join(dir, tarball));
    const [npm, ...install] = await readmeInstall("TypeScript", `npm install ./${tarball}`);
    // From the local npm cache where it can, as the repository's `npm ci` filled it.
    const cached = ["--prefer-offline", "--no-audit", "--no-fund"];
    // One npm run for it and the compiler a TypeScript project has anyway (each run resolves the whole tree again).
    await runCommand(npm!, [...install, ...cached, `typescript@${dev["typescript"]}`, `@types/node@${dev["@types/node"]}`], { cwd: dir });
    await writeFile(
      join(dir, "tsconfig.json"),
      // No skipLibCheck: the package's own declarations are checked too.
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", strict: true, outDir: "out", types: ["node"] }, include: ["*.ts"] }),
    );
    // The example imports "@syncworker/client", as a user's code does.
    await copyFile(join(REPO_ROOT, "clients/ts/examples/update-and-watch.ts"), join(dir, "update-and-watch.ts"));
    await runCommand(join(dir, "node_modules/.bin/tsc"), ["-p", "."], { cwd: dir });
    assert.match(await lastLine(process.execPath, ["out/update-and-watch.js", ...flags("1.0.0")], { cwd: dir }), COMPLETED);
  },
);

test("TypeScript: installed from a path, the package builds itself (prepare) and imports", { timeout: 300_000 }, async () => {
  // A copy of clients/ts without dist/, in a tree whose node_modules is the repository's, as in a checkout after
  // `npm ci`: prepare builds there, never in the checkout that other tests read.
  const source = join(scratch, "ts-source");
  await cp(join(REPO_ROOT, "clients/ts"), join(source, "client"), { recursive: true, filter: (path) => !/\/(dist|node_modules)$/.test(path) });
  await symlink(join(REPO_ROOT, "node_modules"), join(source, "node_modules"));
  const dir = await project("ts-path-app");
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "syncworker-client-path-user", private: true, type: "module" }));
  await runCommand("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(source, "client")], { cwd: dir });
  const exported = await runCommand(
    process.execPath,
    ["--input-type=module", "-e", 'console.log(typeof (await import("@syncworker/client")).SyncWorkerClient)'],
    { cwd: dir },
  );
  assert.equal(exported.trim(), "function");
});

test("Go: go get from the release's module proxy into a new module, which builds and runs the example", { timeout: 300_000 }, async () => {
  const dir = await project("go-app");
  const goEnv = async (name: string): Promise<string> => (await runCommand("go", ["env", name], { cwd: dir })).trim();
  const env = {
    // The release first; then the machine's module cache (scripts/setup-clients.sh filled it with the client's
    // dependencies), which has the proxy's layout; then the public proxy.
    GOPROXY: `file://${join(release, "go")},file://${join(await goEnv("GOMODCACHE"), "cache/download")},https://proxy.golang.org`,
    // The checksum database cannot know an unpublished version; the dependencies are still checked against it.
    GONOSUMDB: "github.com/syncworker/syncworker",
    // A module cache of this run's own, so no earlier run's copy of this version stands in for the release
    // (-modcacherw lets it be removed). -trimpath below keeps the build cache's entries valid across such caches.
    GOMODCACHE: join(scratch, "gomodcache"),
    GOFLAGS: "-modcacherw -mod=mod",
    GOWORK: "off",
  };
  await runCommand("go", ["mod", "init", "example.com/syncworker-client-user"], { cwd: dir, env });
  await copyFile(join(REPO_ROOT, "clients/go/examples/update-and-watch/main.go"), join(dir, "main.go"));
  const [go, ...get] = await readmeInstall("Go", `go get ${GO_MODULE}@v${VERSION}`);
  await runCommand(go!, get, { cwd: dir, env });
  assert.equal((await runCommand("go", ["list", "-m", GO_MODULE], { cwd: dir, env })).trim(), `${GO_MODULE} v${VERSION}`);
  await runCommand("go", ["build", "-trimpath", "-o", "update-and-watch", "."], { cwd: dir, env, timeoutMs: 280_000 });
  assert.match(await lastLine(join(dir, "update-and-watch"), flags("1.1.0"), { cwd: dir }), COMPLETED);
});

test("Python: the wheel in a new venv runs the example; the sdist carries the sources and the generated code", { timeout: 300_000 }, async () => {
  const dir = await project("python-app");
  const venv = join(scratch, "venv");
  await runCommand(PYTHON, ["-m", "venv", venv], { cwd: dir });
  const python = join(venv, "bin/python");
  const wheel = `syncworker_client-${VERSION}-py3-none-any.whl`;
  await copyFile(join(release, "python", wheel), join(dir, wheel));
  const [pip, ...install] = await readmeInstall("Python", `pip install ./${wheel}`);
  // The venv's pip; the wheel's dependencies (grpcio, grpcio-status, protobuf) from the package index, through pip's cache.
  await runCommand(python, ["-m", pip!, ...install, "--quiet", "--disable-pip-version-check"], { cwd: dir });
  await copyFile(join(REPO_ROOT, "clients/python/examples/update_and_watch.py"), join(dir, "update_and_watch.py"));
  assert.match(await lastLine(python, ["update_and_watch.py", ...flags("1.0.0")], { cwd: dir }), COMPLETED);

  const sdist = await runCommand("tar", ["-tzf", join(release, `python/syncworker_client-${VERSION}.tar.gz`)], { cwd: dir });
  for (const file of [
    "pyproject.toml",
    "src/syncworker_client/client.py",
    "src/syncworker_client/py.typed",
    "gen/syncworker/v1/syncworker_pb2.py",
    "gen/syncworker/v1/syncworker_pb2_grpc.py",
  ]) {
    assert.ok(sdist.split("\n").includes(`syncworker_client-${VERSION}/${file}`), `${file} in the sdist`);
  }
});
