// The fleet page in a real browser (Debian's chromium, driven by puppeteer-core) on a real `syncworker fleet` with
// --token-file: the harness's kube-apiserver as the hub, three member `serve` processes on embedded clusters and one
// MemberCluster whose address nobody listens on. Without a token the page is refused and asks for one; with a reader
// token it lists the rollout and follows it: the stages' succeeded/total move to their final counts, the unreachable
// member shows its blocker, the members are counted by state and the counted ones can be listed; `#NAME` picks a
// rollout. The stream's events are FleetWatch's own (checked against FleetClient). Screenshots are saved under
// test/artifacts/ (docs/images/fleet-page.png is fleet-page-1280x800.png, copied by hand).
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { FleetClient, FleetWatchResponse } from "@syncworker/client";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { demoAt, FLEET_API, installFleet, kubectl, registerMembers, rolloutStatus, startHub, startMembers, tempDir } from "../harness/fleet.js";
import { REPO_ROOT, type ServerProcess } from "../harness/server.js";
import { sseEvents } from "../harness/sse.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "browser");

const ARTIFACTS = join(REPO_ROOT, "test/artifacts");
const NAMESPACE = "fleet-page";
const ROLLOUT = "to-1-1-0";
/** Sorts after m-00…m-02, so it falls in the last stage, behind the others. */
const UNREACHABLE = "unreachable";
const READER = "fleet-reader-token";

let cp: ControlPlane;
let members: ServerProcess[] = [];
let hub: ServerProcess;
let browser: Browser;
/** The page opened without a token, then given one through its form. */
let page: Page;
let release = "";

const url = (path = "/"): string => `http://${hub.adminAddress}${path}`;
const text = (p: Page, selector: string): Promise<string> => p.$eval(selector, (e) => e.textContent ?? "");
/** Each stage's "succeeded/total" cell, by stage. */
const stageCells = (p: Page): Promise<Record<string, string>> =>
  p.$$eval("[data-testid=stages] tbody tr", (trs) =>
    Object.fromEntries(trs.map((tr) => [tr.getAttribute("data-stage") ?? "", tr.children[1]?.textContent ?? ""])),
  );
const counts = (p: Page): Promise<Record<string, string>> =>
  p.$$eval("[data-testid=counts] li", (lis) => Object.fromEntries(lis.map((li) => [li.getAttribute("data-state") ?? "", li.textContent ?? ""])));

before(
  async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    cp = await startControlPlane();
    await installFleet(cp, NAMESPACE);
    const dir = await tempDir("fleet-page-");
    release = await demoAt(dir, "1.1.0");
    const tokens = join(dir, "tokens.csv");
    await writeFile(tokens, `${READER},dana,reader\n`);
    // Operators slow enough that a member's update takes a while, for the page to show it under way.
    members = await startMembers(3, join(REPO_ROOT, "examples/payloads/demo-1.0.0"), () => ["--operator-delay", "4s"]);
    await registerMembers(cp, NAMESPACE, members);
    await cp.api.apply(
      {
        apiVersion: FLEET_API,
        kind: "MemberCluster",
        metadata: { name: UNREACHABLE, namespace: NAMESPACE, labels: { env: "test" } },
        spec: { address: "127.0.0.1:1" },
      } as never,
      "fleet-page-test",
    );
    hub = await startHub(cp, NAMESPACE, ["--token-file", tokens]);
    browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new"] });
  },
  { timeout: 10 * 60_000 },
);

after(async () => {
  await browser?.close();
  for (const p of [hub, ...members]) await p?.stop().catch(() => undefined);
  await cp?.stop();
});

test("without a token the page is refused (401) and asks for one; a reader token lets it in; its files go gzipped", { timeout: 120_000 }, async () => {
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(url());
  await page.waitForSelector("[data-testid=token]", { timeout: 30_000 });
  assert.match(await page.$eval("form.token p", (e) => e.textContent ?? ""), /FleetWatch needs a bearer token/);
  const refused = await fetch(url("/api/v1/fleet/rollouts"));
  assert.equal(refused.status, 401);
  assert.equal(((await refused.json()) as { code: string }).code, "UNAUTHENTICATED");
  assert.equal((await fetch(url("/api/v1/fleet/stream?rollout=x"))).status, 401);
  assert.equal((await fetch(url("/api/v1/fleet/rollouts"), { headers: { authorization: "Bearer not-a-token" } })).status, 401);

  await page.type("[data-testid=token]", READER);
  await page.click("form.token button");
  // No rollout yet: the page says so, and asks again until there is one.
  await page.waitForSelector("[data-testid=no-rollouts]", { timeout: 30_000 });
  assert.equal(await page.$("form.token"), null);

  // The page's files need no token, and go compressed to a browser that takes gzip.
  for (const path of ["/", "/page/fleet.js", "/page/app.css"]) {
    const file = await fetch(url(path), { headers: { "accept-encoding": "gzip" } });
    assert.equal(file.status, 200, path);
    assert.equal(file.headers.get("content-encoding"), "gzip", path);
  }
  assert.match(await (await fetch(url("/"))).text(), /<script type="module" src="\/page\/fleet\.js">/);
});

test(
  "the rollout is listed and picked; stages move to their final counts; the unreachable member shows its blocker; counts by state",
  { timeout: 15 * 60_000 },
  async () => {
    await cp.api.apply(
      {
        apiVersion: FLEET_API,
        kind: "ReleaseRollout",
        metadata: { name: ROLLOUT, namespace: NAMESPACE },
        spec: {
          release: { version: "1.1.0", image: release },
          memberSelector: { matchLabels: { env: "test" } },
          strategy: { maxConcurrent: 2, unavailableGracePeriod: "10m", stages: [{ name: "canary", count: 1 }, { name: "rest" }] },
          // Created paused, so the page sees it before anything moves.
          paused: true,
        },
      } as never,
      "fleet-page-test",
    );
    // The page was polling for a rollout: it picks this one, and the address names it.
    await page.waitForSelector("[data-testid=rollout]", { timeout: 60_000 });
    assert.equal(await page.$eval("[data-testid=rollout-picker]", (e) => (e as unknown as { value: string }).value), ROLLOUT);
    assert.match(await page.$eval("[data-testid=rollout-picker]", (e) => e.textContent ?? ""), /to-1-1-0 · 1\.1\.0 · /);
    assert.equal(new URL(page.url()).hash, `#${ROLLOUT}`);
    assert.match(await text(page, "[data-testid=connection]"), /^live$/);
    await page.waitForFunction(() => document.querySelector("[data-testid=conditions] [data-type=Paused]") !== null, { timeout: 60_000 });
    assert.equal(await text(page, "[data-testid=conditions] [data-type=Paused]"), "Paused (PausedBySpec): spec.paused is true");
    assert.match(await text(page, "[data-testid=phase]"), /^Paused, stage canary/);
    assert.deepEqual(await stageCells(page), { canary: "0/1", rest: "0/3" });
    await kubectl(cp, "patch", "releaserollout", ROLLOUT, "-n", NAMESPACE, "--type=merge", "-p", JSON.stringify({ spec: { paused: false } }));

    // Sampled until every member that can be is at the release: canary 1/1, rest 2/3 (the unreachable one waits).
    const seen: Record<string, string[]> = {};
    const states = new Set<string>();
    let midShot = false;
    const deadline = Date.now() + 12 * 60_000;
    let cells: Record<string, string> = {};
    while (Date.now() < deadline) {
      cells = await stageCells(page);
      for (const [stage, cell] of Object.entries(cells)) if (seen[stage]?.at(-1) !== cell) (seen[stage] ??= []).push(cell);
      const rows = await page.$$eval("[data-testid=members] tbody tr", (trs) => trs.map((tr) => tr.getAttribute("data-state") ?? ""));
      for (const s of rows) states.add(s);
      if (!midShot && rows.includes("updating")) {
        midShot = true;
        await page.screenshot({ path: join(ARTIFACTS, "fleet-page-mid-rollout.png"), fullPage: true });
      }
      if (cells["canary"] === "1/1" && cells["rest"] === "2/3" && (await page.$(`[data-member=${UNREACHABLE}] [data-testid=blocker]`))) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.deepEqual(cells, { canary: "1/1", rest: "2/3" }, `stage cells seen: ${JSON.stringify(seen)}`);
    // Every change the page showed went one way: from none succeeded to the final count.
    assert.deepEqual(seen["canary"], ["0/1", "1/1"]);
    assert.equal(seen["rest"]?.[0], "0/3", JSON.stringify(seen));
    assert.equal(seen["rest"]?.at(-1), "2/3");
    const succeeded = (seen["rest"] ?? []).map((c) => Number.parseInt(c, 10));
    assert.ok(
      succeeded.every((n, i) => i === 0 || n > (succeeded[i - 1] ?? 0)),
      `rest only went forward: ${JSON.stringify(seen)}`,
    );
    assert.ok(states.has("updating") || states.has("starting"), `members were listed while under way: ${[...states].join(", ")}`);

    // The unreachable member: listed though pending, with what holds it.
    const blocker = await text(page, `[data-member=${UNREACHABLE}] [data-testid=blocker]`);
    assert.match(blocker, /^unreachable since \d{4}-\d\d-\d\dT/);
    assert.equal(await page.$eval(`[data-member=${UNREACHABLE}]`, (e) => e.getAttribute("data-state")), "pending");
    assert.equal(await page.$eval(`[data-member=${UNREACHABLE}] td:nth-child(2)`, (e) => e.textContent), "rest");
    // Nobody else is under way or held up once the others are done.
    assert.deepEqual(await page.$$eval("[data-testid=members] tbody tr", (trs) => trs.map((tr) => tr.getAttribute("data-member"))), [UNREACHABLE]);

    // The counts by state agree with the rollout's status on the hub.
    const status = await rolloutStatus(cp, NAMESPACE, ROLLOUT);
    assert.equal(status.counts?.["succeeded"], 3);
    assert.equal(status.counts?.["pending"], 1);
    assert.deepEqual(await counts(page), { pending: "1 pending", succeeded: "3 succeeded", total: "4 in all" });
    assert.match(await text(page, "[data-testid=phase]"), /^Progressing, stage rest · canary 1\/1 · rest 2\/3$/);
    assert.match(await text(page, "[data-testid=conditions]"), /Progressing: 3 of 4 members at the release/);

    // The counted ones are listed when expanded.
    await page.click("details[data-state=succeeded] summary");
    assert.deepEqual(await page.$$eval("details[data-state=succeeded] li", (lis) => lis.map((li) => li.textContent)), [
      "m-00 (canary, 1.1.0)",
      "m-01 (rest, 1.1.0)",
      "m-02 (rest, 1.1.0)",
    ]);
    assert.ok(await page.$eval("details[data-state=succeeded] li", (e) => (e as unknown as { offsetHeight: number }).offsetHeight > 0), "shown");

    await page.screenshot({ path: join(ARTIFACTS, "fleet-page-1280x800.png"), fullPage: true });
    await page.setViewport({ width: 400, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, "fleet-page-400.png"), fullPage: true });
    await page.setViewport({ width: 1280, height: 800 });
  },
);

test("the stream is FleetWatch's events; an unknown rollout is a 404; #NAME picks the rollout", { timeout: 120_000 }, async () => {
  const auth = { authorization: `Bearer ${READER}` };
  const missing = await fetch(url("/api/v1/fleet/stream?rollout=nope"), { headers: auth });
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { code: "NOT_FOUND", message: `ReleaseRollout ${NAMESPACE}/nope not found` });
  assert.equal((await fetch(url("/api/v1/fleet/stream"), { headers: auth })).status, 400);

  // The page's stream up to `synced`, beside FleetWatch's on the hub's gRPC listener: the same events.
  const events = await sseUntilSynced(url(`/api/v1/fleet/stream?rollout=${ROLLOUT}`), auth);
  const fleet = new FleetClient(hub.address, { token: READER });
  const grpc: unknown[] = [];
  try {
    for await (const event of fleet.watchFleet({ rollout: ROLLOUT, signal: AbortSignal.timeout(30_000) })) {
      grpc.push(FleetWatchResponse.toJSON(event));
      if (event.synced) break;
    }
  } finally {
    fleet.close();
  }
  // The same events in the same order. A member's progress fields move with each snapshot it sends (a reconcile
  // pass, lastSeen): compared are what the hub decides of it.
  const decided = (list: readonly unknown[]): string[] =>
    list.map((e) => {
      const { member } = e as { member?: { member: string; stage: string; state: string; version?: string; blocker?: string } };
      return JSON.stringify(member ? { member: [member.member, member.stage, member.state, member.version, member.blocker] } : e);
    });
  assert.deepEqual(decided(events), decided(grpc));
  assert.deepEqual(Object.keys(events[0] ?? {}), ["rollout"]);
  assert.deepEqual(events.at(-1), { synced: {} });
  const views = events.flatMap((e) => {
    const { member } = e as { member?: { member: string; state: string } };
    return member ? [`${member.member}:${member.state}`] : [];
  });
  assert.deepEqual(views.sort(), [
    "m-00:MEMBER_STATE_SUCCEEDED",
    "m-01:MEMBER_STATE_SUCCEEDED",
    "m-02:MEMBER_STATE_SUCCEEDED",
    `${UNREACHABLE}:MEMBER_STATE_PENDING`,
  ]);

  // A second rollout, selecting nobody; #NAME picks it, and picking in the list goes back.
  await cp.api.apply(
    {
      apiVersion: FLEET_API,
      kind: "ReleaseRollout",
      metadata: { name: "nobody", namespace: NAMESPACE },
      spec: { release: { version: "1.1.0", image: release }, memberSelector: { matchLabels: { env: "none" } }, strategy: { stages: [{ name: "all" }] } },
    } as never,
    "fleet-page-test",
  );
  const other = await browser.newPage();
  await other.evaluateOnNewDocument((t: string) => sessionStorage.setItem("syncworker.token", t), READER);
  await other.goto(url("/#nobody"));
  await other.waitForFunction(() => /^nobody → 1\.1\.0/.test(document.querySelector("[data-testid=rollout] h2")?.textContent ?? ""), { timeout: 30_000 });
  assert.match(await text(other, "[data-testid=phase]"), /^Pending/);
  assert.deepEqual(await counts(other), { total: "0 in all" });
  assert.deepEqual(await other.$$eval("[data-testid=rollout-picker] option", (os) => os.map((o) => o.getAttribute("value"))), ["nobody", ROLLOUT]);
  await other.select("[data-testid=rollout-picker]", ROLLOUT);
  await other.waitForFunction(
    (r: string) => document.querySelector("[data-testid=rollout] h2")?.textContent?.startsWith(`${r} →`) === true,
    { timeout: 30_000 },
    ROLLOUT,
  );
  assert.equal(new URL(other.url()).hash, `#${ROLLOUT}`);
  await other.close();
});

/** The `fleet` events of an SSE stream, their data parsed, up to and with the first `synced`. */
async function sseUntilSynced(at: string, headers: Record<string, string>): Promise<unknown[]> {
  const response = await fetch(at, { headers, signal: AbortSignal.timeout(30_000) });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  const events: unknown[] = [];
  for await (const { event, data } of sseEvents(response)) {
    if (event !== "fleet") continue;
    const parsed = JSON.parse(data) as { synced?: object };
    events.push(parsed);
    // Leaving the loop cancels the response's body: the connection closes.
    if (parsed.synced) return events;
  }
  throw new Error(`the stream ended before synced: ${JSON.stringify(events)}`);
}
