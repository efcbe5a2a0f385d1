// The live update page in a real browser (Debian's chromium, driven by puppeteer-core) during a real sync on the
// embedded cluster, with bearer tokens: components move forward and a waiting one shows its reason; a pause made
// from the CLI shows on the page; Resume is refused for a reader and done for a writer, and Cancel once applying
// started is refused naming what was applied; after the server restarts on the same port the page resumes from the
// last revision it saw, never seeing one twice. Screenshots at 1280×800 and 400 px wide are saved under
// test/artifacts/.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { runCli } from "../harness/cli.js";
import { REPO_ROOT, startServer, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("browser");

const ARTIFACTS = join(REPO_ROOT, "test/artifacts");
const DEMO = join(REPO_ROOT, "examples/payloads");
const STATE = await mkdtemp(join(tmpdir(), "syncworker-page-"));
const TOKENS = join(STATE, "..", `${STATE.split("/").pop()}-tokens`);
await writeFile(TOKENS, "writer-token,alice,writer\nreader-token,bob,reader\n");

let server: ServerProcess;
let browser: Browser;
let writer: Page;
let reader: Page;

const serve = (adminListen = "127.0.0.1:0"): Promise<ServerProcess> =>
  startServer(["--state-dir", STATE, "--token-file", TOKENS, "--operator-delay", "4s", "--reconcile-interval", "60s", "--admin-listen", adminListen]);
const cli = (...args: string[]) => runCli([...args, "--address", server.address, "--token", "writer-token"]);

/** A page signed in with `token`, at 1280×800. */
async function open(token: string): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.evaluateOnNewDocument((t: string) => sessionStorage.setItem("syncworker.token", t), token);
  await page.goto(`http://${server.adminAddress}/`);
  await page.waitForSelector("[data-testid=connection].live", { timeout: 30_000 });
  return page;
}

const text = (page: Page, selector: string): Promise<string> => page.$eval(selector, (e) => e.textContent ?? "");
/** What the page keeps of the revisions it received (src/page/app.tsx), seen from Node, which has no DOM types. */
type PageGlobals = { syncworkerRevisions: number[] };
const revisions = (page: Page): Promise<number[]> => page.evaluate(() => (globalThis as unknown as PageGlobals).syncworkerRevisions);

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serve();
  browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new"] });
  [writer, reader] = await Promise.all([open("writer-token"), open("reader-token")]);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test("a page without a token is refused and asks for one, without retrying; its files go gzipped", async () => {
  const page = await browser.newPage();
  await page.goto(`http://${server.adminAddress}/`);
  await page.waitForSelector("[data-testid=connection].refused", { timeout: 30_000 });
  assert.match(await text(page, "[data-testid=connection]"), /refused: StatusWatch needs a bearer token/);
  assert.ok(await page.$("[data-testid=token]"), "a token field");
  await page.close();
  // The page's files need no token, and go compressed to a browser that takes gzip.
  const script = await fetch(`http://${server.adminAddress}/page/app.js`, { headers: { "accept-encoding": "gzip" } });
  assert.equal(script.status, 200);
  assert.equal(script.headers.get("content-encoding"), "gzip");
});

test("during a sync: components move forward, a waiting one shows its reason; screenshots", { timeout: 240_000 }, async () => {
  await writer.bringToFront();
  assert.equal((await cli("update", "--image", join(DEMO, "demo-1.0.0"))).code, 0);
  // What each component showed, sample by sample: its state and how many of its manifests were done.
  const seen = new Map<string, { state: string; done: number }[]>();
  let waiting = "";
  const deadline = Date.now() + 180_000;
  for (let complete = false; !complete && Date.now() < deadline;) {
    // Read before the rows, so the last rows sampled are from after the completion.
    complete = /Cluster version is 1\.0\.0/.test(await text(writer, "[data-testid=message]"));
    const rows = await writer.$$eval("[data-testid=components] tbody tr", (trs) =>
      trs.map((tr) => ({
        component: tr.getAttribute("data-component") ?? "",
        state: tr.getAttribute("data-state") ?? "",
        done: Number.parseInt(tr.children[3]?.textContent ?? "0", 10),
        wait: tr.querySelector(".wait")?.textContent ?? "",
      })),
    );
    for (const row of rows) seen.set(row.component, [...(seen.get(row.component) ?? []), { state: row.state, done: row.done }]);
    const blocked = rows.find((row) => row.state === "Waiting" && row.wait.trim());
    if (blocked && !waiting) {
      waiting = `${blocked.component}: ${blocked.wait}`;
      await writer.screenshot({ path: join(ARTIFACTS, "page-1280x800.png") });
      await writer.setViewport({ width: 400, height: 900 });
      await writer.screenshot({ path: join(ARTIFACTS, "page-400.png"), fullPage: true });
      await writer.setViewport({ width: 1280, height: 800 });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.match(waiting, /^\S+: \S+/, "a waiting component showed its reason");
  const movedOn = [...seen].filter(([, samples]) => samples.some((a, i) => samples.slice(i + 1).some((b) => b.done > a.done)));
  assert.ok(movedOn.length > 0, `components moved forward: ${JSON.stringify([...seen])}`);
  assert.match(await text(writer, "[data-testid=message]"), /Cluster version is 1\.0\.0/);
});

test(
  "a pause from the CLI shows; Resume is refused for a reader, done for a writer; Cancel once applying started is refused",
  { timeout: 180_000 },
  async () => {
    assert.equal((await cli("update", "--image", join(DEMO, "demo-1.1.0"), "--generation", "2")).code, 0);
    assert.equal((await cli("pause", "--reason", "page test")).code, 0);
    await writer.waitForSelector("[data-testid=paused]", { timeout: 30_000 });
    assert.match(await text(writer, "[data-testid=paused]"), /^Paused by .+ for \d+s: page test/);

    // One tab is in front at a time: a page behind another is hidden (its stream released) and takes no clicks.
    await reader.bringToFront();
    await reader.waitForSelector("[data-testid=resume]", { timeout: 30_000 });
    await reader.click("[data-testid=resume]");
    await reader.waitForSelector("[data-testid=action-error]", { timeout: 30_000 });
    assert.match(await text(reader, "[data-testid=action-error]"), /resume refused \(HTTP 403\): "bob" may not call ResumeUpdate/);
    assert.ok(await writer.$("[data-testid=paused]"), "still paused");

    await writer.bringToFront();
    await writer.click("[data-testid=resume]");
    await writer.waitForSelector("[data-testid=pause-button]", { timeout: 30_000 });
    assert.equal(await writer.$("[data-testid=action-error]"), null);

    // Applying started: Cancel is refused, naming what was applied (FAILED_PRECONDITION as 409).
    await writer.waitForFunction(() => /Working towards 1\.1\.0: [1-9]/.test(document.querySelector("[data-testid=message]")?.textContent ?? ""), {
      timeout: 60_000,
    });
    await writer.click("[data-testid=cancel]");
    await writer.waitForSelector("[data-testid=action-error]", { timeout: 30_000 });
    assert.match(await text(writer, "[data-testid=action-error]"), /^cancel refused \(HTTP 409\): the update to 1\.1\.0 .* has started applying/);
  },
);

test("after the server restarts on the same port the page resumes from its last revision, none twice", { timeout: 240_000 }, async () => {
  const port = server.adminAddress.split(":").pop() ?? "";
  const before = await revisions(writer);
  assert.equal(await server.stop(), 0);
  await writer.waitForSelector("[data-testid=connection].retrying", { timeout: 30_000 });
  server = await serve(`127.0.0.1:${port}`);
  await writer.waitForSelector("[data-testid=connection].live", { timeout: 60_000 });
  const latest = await runCli(["status", "-o", "json", "--address", server.address, "--token", "reader-token"]);
  const serverRevision = (JSON.parse(latest.stdout) as { revision: number }).revision;
  await writer.waitForFunction(
    (r: number) => ((globalThis as unknown as PageGlobals).syncworkerRevisions.at(-1) ?? 0) >= r,
    { timeout: 60_000 },
    serverRevision,
  );
  const all = await revisions(writer);
  assert.deepEqual(all.slice(0, before.length), before, "what the page had stays");
  assert.ok(
    all.every((r, i) => i === 0 || r > all[i - 1]!),
    `strictly increasing, never a revision twice: ${all.join(",")}`,
  );
  assert.ok(all.length > before.length, "new snapshots after the restart");
});
