// Opting out of a tier, end to end: scripts/setup.sh names a tier it cannot set up in one line and fails unless
// SYNCWORKER_SKIP_TIERS opts out of it, and a test file needing an opted-out tier, run with that tier's tools gone
// from PATH (and its cached binaries out of reach), reports its tests skipped naming the tier, failing none.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, test } from "node:test";
import { REPO_ROOT } from "../harness/server.js";
import { parseSkipTiers, TIERS, type Tier } from "../harness/tiers.js";

let work = "";
before(async () => {
  work = await mkdtemp(join(tmpdir(), "syncworker-tiers-"));
  // Readable by the unprivileged user setup.sh runs as below.
  await chmod(work, 0o755);
});
after(async () => rm(work, { recursive: true, force: true }));

let shadows = 0;
/** A PATH with every command of this one but `hidden`: a folder of links to them, as a machine without those would have. */
async function pathWithout(hidden: readonly string[]): Promise<string> {
  const dir = join(work, `path-${shadows++}`);
  await mkdir(dir, { mode: 0o755 });
  const linked = new Set(hidden);
  for (const from of (process.env["PATH"] ?? "").split(delimiter)) {
    const names = await readdir(from).catch(() => []);
    for (const name of names.filter((n) => !linked.has(n))) {
      linked.add(name);
      await symlink(join(from, name), join(dir, name));
    }
  }
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv, ids: { uid?: number; gid?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: REPO_ROOT, env, ...ids, timeout: 240_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Every tier but `kept` opted out: setup.sh then looks only at the one it is asked about, and installs nothing else. */
const allBut = (kept: Tier): string => TIERS.filter((t) => t !== kept).join(",");

/** setup.sh copied alone (it needs nothing else with the Go-built tiers opted out), where any user may run it. */
async function setupScript(): Promise<string> {
  const scripts = join(work, "repo/scripts");
  await mkdir(scripts, { recursive: true, mode: 0o755 });
  await chmod(join(work, "repo"), 0o755);
  await copyFile(join(REPO_ROOT, "scripts/setup.sh"), join(scripts, "setup.sh"));
  await chmod(join(scripts, "setup.sh"), 0o755);
  return join(scripts, "setup.sh");
}

const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;

test("not root and tmux missing: setup.sh names the tier and why in one line and fails; opted out, it succeeds", async () => {
  const script = await setupScript();
  const env = { PATH: await pathWithout(["tmux"]), HOME: work, SYNCWORKER_SKIP_TIERS: allBut("terminal") };
  // As root, the unprivileged user nobody runs it (the check is on the user id, which only a real other user has).
  const ids = asRoot ? NOBODY : {};
  const failed = await run("bash", [script], env, ids);
  assert.equal(failed.code, 1, failed.stderr);
  assert.deepEqual(failed.stderr.trimEnd().split("\n"), [
    "setup: tier terminal not set up: tmux missing and not root (apt-get install tmux zsh)",
    "setup: failed tiers: terminal; fix them or opt out with SYNCWORKER_SKIP_TIERS=terminal",
  ]);
  const skipped = await run("bash", [script], { ...env, SYNCWORKER_SKIP_TIERS: TIERS.join(",") }, ids);
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.match(skipped.stderr, /^setup: ready in [\d.]+s \(skipped tiers: tls,terminal,/);
  assert.equal(skipped.stdout, "", "no Go folder is printed with the go tier opted out");
});

test("root without apt-get and tmux missing: setup.sh names the tier and why in one line and fails", { skip: !asRoot && "runs only as root" }, async () => {
  const failed = await run("bash", [await setupScript()], {
    PATH: await pathWithout(["tmux", "apt-get"]),
    HOME: work,
    SYNCWORKER_SKIP_TIERS: allBut("terminal"),
  });
  assert.equal(failed.code, 1, failed.stderr);
  assert.equal(failed.stderr.split("\n")[0], "setup: tier terminal not set up: tmux missing and no apt-get (install tmux zsh)");
});

test("a misspelt tier in SYNCWORKER_SKIP_TIERS fails setup.sh naming it before anything is installed", async () => {
  const failed = await run("bash", [await setupScript()], { PATH: process.env["PATH"], HOME: work, SYNCWORKER_SKIP_TIERS: "kube, jaegr" });
  assert.equal(failed.code, 1);
  assert.equal(failed.stderr, `setup: SYNCWORKER_SKIP_TIERS names no tier jaegr (tiers: ${TIERS.join(" ")})\n`);
});

/**
 * Per tier, a test file that needs it and what takes its tool away: commands hidden from PATH, cached binaries
 * pointed at an empty folder. The Go-built tiers also lose go, so a file that failed to skip fails at once instead
 * of building the tool for minutes.
 */
const CASES: { tier: Tier; file: string; hide: string[]; env?: (empty: string) => NodeJS.ProcessEnv }[] = [
  { tier: "tls", file: "test/integration/security.test.ts", hide: ["openssl"] },
  { tier: "terminal", file: "test/integration/cli-watch-tty.test.ts", hide: ["tmux"] },
  { tier: "browser", file: "test/integration/page.test.ts", hide: ["chromium"] },
  { tier: "metrics", file: "test/unit/telemetry/cluster-version-metrics.test.ts", hide: ["promtool"] },
  { tier: "registry", file: "test/integration/registry-pull.test.ts", hide: ["docker-registry", "skopeo"] },
  { tier: "signatures", file: "test/integration/signature-interop.test.ts", hide: ["gpg", "gpg-agent"] },
  { tier: "image", file: "test/integration/containerfile.test.ts", hide: ["buildah", "debootstrap"] },
  { tier: "disk", file: "test/integration/state-disk.test.ts", hide: ["mount"] },
  { tier: "go", file: "test/clients/go.test.ts", hide: ["go"] },
  { tier: "clients", file: "test/clients/python.test.ts", hide: [], env: (empty) => ({ SYNCWORKER_PYTHON: join(empty, "venv/bin/python") }) },
  { tier: "kube", file: "test/integration/kube-auth.test.ts", hide: ["go"], env: (empty) => ({ SYNCWORKER_CONTROL_PLANE_DIR: empty }) },
  { tier: "jaeger", file: "test/integration/tracing.test.ts", hide: ["go"], env: (empty) => ({ SYNCWORKER_JAEGER_DIR: empty }) },
  { tier: "grpcurl", file: "test/integration/grpcurl.test.ts", hide: ["go"], env: (empty) => ({ SYNCWORKER_GRPCURL_DIR: empty }) },
];

test("every tier has a case below", () =>
  assert.deepEqual(
    CASES.map((c) => c.tier),
    [...TIERS],
  ));

for (const tc of CASES) {
  test(`tier ${tc.tier} opted out and its tools gone: ${tc.file} reports its tests skipped naming it, and fails none`, { timeout: 240_000 }, async () => {
    const empty = await mkdtemp(join(work, `${tc.tier}-`));
    const optedOut = [...parseSkipTiers(process.env["SYNCWORKER_SKIP_TIERS"]), tc.tier].join(",");
    // Without NODE_TEST_CONTEXT the child is a test run of its own, reporting TAP, not a subtest of this one.
    const { NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
    const env = { ...inherited, PATH: await pathWithout(tc.hide), SYNCWORKER_SKIP_TIERS: optedOut, ...tc.env?.(empty) };
    const child = await run(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", "--test-force-exit", join(REPO_ROOT, tc.file)], env);
    const report = `${child.stdout}\n${child.stderr}`;
    const count = (what: string): number => Number(child.stdout.match(new RegExp(`^# ${what} (\\d+)$`, "m"))?.[1] ?? NaN);
    assert.equal(child.code, 0, report);
    assert.equal(count("fail"), 0, report);
    assert.equal(count("cancelled"), 0, report);
    // The reason names this tier, with any others this run opted out of that the file needs.
    const reason = new RegExp(` # SKIP tiers? (\\S+, )*${tc.tier}(, \\S+)* opted out \\(SYNCWORKER_SKIP_TIERS\\)$`);
    assert.ok(
      child.stdout.split("\n").some((l) => reason.test(l)),
      `some test is skipped with a reason naming tier ${tc.tier}:\n${report}`,
    );
  });
}
