/**
 * Container images for tests, built and run with Debian's buildah and nothing pulled. The base image the
 * Containerfile builds FROM is made here from Debian's packages (debootstrap from the configured apt mirror) and the
 * Node.js and npm the npm registry ships, cached by its inputs so only the first run pays for it. A built image
 * runs as a pod runs it: its root file system read-only, its user, environment, working directory and entry point
 * from its config, and volumes bind-mounted where it is told (buildah run cannot make the root read-only).
 */
import { execFile, spawn, type ChildProcessByStdio } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rename, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { REPO_ROOT } from "./server.js";
import { TOOLS } from "./tools.js";

const run = promisify(execFile);
const BIG = { maxBuffer: 64 << 20 };

/** The Debian release of the base, the one the official node:20-bookworm-slim image is built on. */
const SUITE = "bookworm";
/** Bumped when the recipe below changes, so a base cached by an older recipe is built again. */
const RECIPE = 1;
/** The trust store the machine reaches the npm registry with (a TLS-intercepting proxy's CA may be in it). */
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** The first Debian archive apt is configured with (deb822 `.sources` or one-line `sources.list`), not the security one. */
export function aptMirror(): string {
  const dir = "/etc/apt/sources.list.d";
  const files = [
    "/etc/apt/sources.list",
    ...(existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith(".sources") || f.endsWith(".list"))
          .map((f) => join(dir, f))
      : []),
  ].filter((f) => existsSync(f));
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const uris = [...text.matchAll(/^URIs:\s*(\S+)/gm), ...text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+/gm)].map((m) => m[1]!);
    const archive = uris.find((uri) => /\/debian\/?$/.test(uri));
    if (archive) return archive;
  }
  throw new Error(`no Debian archive in ${files.join(", ") || "/etc/apt"}: debootstrap needs a mirror`);
}

/**
 * A Debian minbase root file system with this process's Node.js version (the `node-linux-<arch>` npm package) and
 * the npm this machine runs, kept as an OCI layout directory `~/.cache/syncworker/base-<hash of the inputs>` and
 * copied into buildah's storage as `localhost/syncworker-base:<hash>`, the name it returns for a `FROM` (buildah
 * takes no `oci:` path with a dot-directory such as `.cache` in it). The first call takes minutes (debootstrap);
 * later ones find it.
 */
export async function nodeBaseImage(): Promise<string> {
  const node = process.version.slice(1);
  const npm = (await run("npm", ["--version"])).stdout.trim();
  const inputs = { recipe: RECIPE, suite: SUITE, mirror: aptMirror(), node, npm, arch: process.arch };
  const hash = createHash("sha256").update(JSON.stringify(inputs)).digest("hex").slice(0, 16);
  const name = `localhost/syncworker-base:${hash}`;
  const dir = join(TOOLS, `base-${hash}`);
  if (!existsSync(join(dir, "index.json"))) await makeBase(inputs, dir);
  const stored = await run("buildah", ["inspect", "--type", "image", name]).then(
    () => true,
    () => false,
  );
  if (!stored) await run("skopeo", ["copy", "--quiet", `oci:${dir}`, `containers-storage:${name}`], BIG);
  return name;
}

async function makeBase(inputs: { mirror: string; node: string; npm: string }, dir: string): Promise<void> {
  const { node, npm } = inputs;

  await mkdir(TOOLS, { recursive: true });
  const work = await mkdtemp(join(TOOLS, ".base-"));
  try {
    const rootfs = join(work, "rootfs");
    await run("debootstrap", ["--variant=minbase", SUITE, rootfs, inputs.mirror], BIG);
    // What a slim image leaves out: documentation and apt's downloads.
    for (const path of ["usr/share/doc", "usr/share/man", "usr/share/locale", "var/cache/apt", "var/lib/apt/lists"])
      await rm(join(rootfs, path), { recursive: true, force: true });
    await run("npm", ["pack", `node-linux-${process.arch}@${node}`, `npm@${npm}`, "--pack-destination", work], BIG);
    await run("tar", ["-xzf", join(work, `node-linux-${process.arch}-${node}.tgz`), "-C", work, "package/bin/node"]);
    await rename(join(work, "package/bin/node"), join(rootfs, "usr/local/bin/node"));
    await chmod(join(rootfs, "usr/local/bin/node"), 0o755);
    const npmDir = join(rootfs, "usr/local/lib/node_modules/npm");
    await mkdir(npmDir, { recursive: true });
    await run("tar", ["-xzf", join(work, `npm-${npm}.tgz`), "-C", npmDir, "--strip-components=1"]);
    for (const name of ["npm", "npx"]) await symlink(`../lib/node_modules/npm/bin/${name}-cli.js`, join(rootfs, `usr/local/bin/${name}`));

    const container = (await run("buildah", ["from", "scratch"])).stdout.trim();
    try {
      const mountpoint = (await run("buildah", ["mount", container])).stdout.trim();
      await run("cp", ["-a", `${rootfs}/.`, mountpoint]);
      await run("buildah", ["umount", container]);
      await run("buildah", ["config", "--env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "--cmd", "node", container]);
      await run("buildah", ["commit", "--quiet", container, `oci:${join(work, "oci")}`], BIG);
    } finally {
      await run("buildah", ["rm", container]).catch(() => undefined);
    }
    // Complete or absent: a run killed half-way leaves only its work directory.
    await rename(join(work, "oci"), dir);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * `buildah bud` of the repository's Containerfile FROM `baseImage`, tagged `tag`, with the layer cache (a second
 * build of unchanged sources reuses every step). The build reaches the npm registry with this machine's trust store,
 * mounted for the build only.
 */
export async function buildImage(baseImage: string, tag: string): Promise<void> {
  await run(
    "buildah",
    [
      "bud",
      "--layers",
      "--isolation",
      "chroot",
      "--quiet",
      "--build-arg",
      `NODE_IMAGE=${baseImage}`,
      "--volume",
      `${CA_BUNDLE}:${CA_BUNDLE}:ro`,
      "--build-arg",
      `NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
      "--tag",
      tag,
      "--file",
      join(REPO_ROOT, "Containerfile"),
      REPO_ROOT,
    ],
    BIG,
  ).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`buildah bud failed: ${err.stderr?.slice(-8_000) ?? err.message}`);
  });
}

/** The parts of an image's config a runtime starts it with. */
export interface ImageConfig {
  readonly User?: string;
  readonly Env?: readonly string[];
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[];
  readonly WorkingDir?: string;
  readonly ExposedPorts?: Readonly<Record<string, object>>;
}

export interface ImageProcess {
  /** The image's entry point, PID of the spawned command: it receives signals itself. */
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Removes the working container; call after the process exited. */
  remove(): Promise<void>;
}

/** Mounts the container's root read-only with the volumes, /dev and /proc, then execs the entry point as the image's user. */
const RUN_SCRIPT = `set -e
m=$1 user=$2 dir=$3; shift 3
mount --bind "$m" "$m"
while [ "$1" != -- ]; do mkdir -p "$m$2"; mount --bind "$1" "$m$2"; shift 2; done; shift
mount --rbind /dev "$m/dev"
mount -t proc proc "$m/proc"
mount -o remount,bind,ro "$m"
exec chroot --userspec="$user" "$m" /usr/bin/env -i -C "$dir" "$@"`;

/**
 * Starts `image` with `args` after its entry point, as Kubernetes would with `readOnlyRootFilesystem: true`: in a
 * mount namespace of its own, its root read-only, `volumes` (container path → host directory) bind-mounted, the
 * image's user, its environment plus `env`, and the host's network (so the test reaches its loopback ports).
 */
export async function runImage(
  image: string,
  args: readonly string[],
  volumes: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string>>,
): Promise<ImageProcess> {
  const container = (await run("buildah", ["from", "--pull=never", "--quiet", image])).stdout.trim();
  const remove = async (): Promise<void> => void (await run("buildah", ["rm", container]));
  try {
    const mountpoint = (await run("buildah", ["mount", container])).stdout.trim();
    const config = await imageConfig(image);
    const environment = [...(config.Env ?? []), ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
    const mounts = Object.entries(volumes).flatMap(([path, host]) => [host, path]);
    const command = [...(config.Entrypoint ?? []), ...args];
    const child = spawn(
      "unshare",
      [
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        RUN_SCRIPT,
        "sh",
        mountpoint,
        config.User || "0",
        config.WorkingDir || "/",
        ...mounts,
        "--",
        ...environment,
        ...command,
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    return { child, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** The config of a local image (`buildah inspect`), or of one in a registry reached over plain HTTP (`skopeo inspect --config`). */
export async function imageConfig(image: string): Promise<ImageConfig> {
  if (image.startsWith("docker://")) {
    const { stdout } = await run("skopeo", ["inspect", "--config", "--tls-verify=false", image], BIG);
    return (JSON.parse(stdout) as { config: ImageConfig }).config;
  }
  const { stdout } = await run("buildah", ["inspect", "--type", "image", image], BIG);
  return (JSON.parse(stdout) as { OCIv1: { config: ImageConfig } }).OCIv1.config;
}

/** The image's size as buildah reports it (its layers uncompressed, e.g. "312 MB"). */
export async function imageSize(image: string): Promise<string> {
  return (await run("buildah", ["images", "--format", "{{.Size}}", "--noheading", image])).stdout.trim();
}

/** Pushes a local image to a registry over plain HTTP (the test registry). */
export async function pushImageTo(image: string, destination: string): Promise<void> {
  await run("buildah", ["push", "--quiet", "--tls-verify=false", image, destination], BIG);
}
