// `syncworker watch` on the TypeScript client: a stream cut mid-sync is resumed with since_revision, so the command
// still ends on completion and prints no revision twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { SyncWorkerClient } from "@syncworker/client";
import { startTcpProxy } from "../harness/tcp-proxy.js";
import { REPO_ROOT, startServer, SYNCWORKER } from "../harness/server.js";

test("syncworker watch resumes a dropped stream and ends on completion, no revision twice", { timeout: 120_000 }, async () => {
  const server = await startServer(["--operator-delay", "500ms"]);
  const proxy = await startTcpProxy(server.address);
  const client = new SyncWorkerClient(server.address);
  try {
    const { revision: start } = await client.getStatus();
    const child = spawn(process.execPath, [...SYNCWORKER, "watch", "--until-complete", "1.0.0", "--address", proxy.address], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, "exit");
    const seen: Array<{ revision: number; done: number; total: number }> = [];
    let cuts = 0;
    for await (const line of createInterface({ input: child.stdout })) {
      const status = JSON.parse(line) as { revision: number; done?: number; total?: number; following?: object };
      // The line naming the release followed is no snapshot.
      if (status.following) continue;
      // The update starts once the watch is connected, so the command sees the sync from its beginning.
      if (seen.length === 0) await client.update({ generation: 1, desired: { version: "1.0.0", image: join(REPO_ROOT, "examples/payloads/demo-1.0.0") } });
      seen.push({ revision: Number(status.revision), done: status.done ?? 0, total: status.total ?? 0 });
      // Cut twice while the sync runs, once the stream has delivered some of it.
      if (cuts < 2 && Number(status.revision) > start && (status.done ?? 0) < (status.total ?? 0)) {
        cuts++;
        proxy.cut();
      }
    }
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, stderr);
    assert.ok(cuts >= 1, "the sync finished before the watch could be cut; slow it down");
    assert.ok(proxy.accepted() > 1, "the watch reconnected through the proxy");
    for (let i = 1; i < seen.length; i++)
      assert.ok(seen[i]!.revision > seen[i - 1]!.revision, `revisions strictly increase: ${seen.map((s) => s.revision).join(",")}`);
    const last = seen.at(-1)!;
    assert.ok(last.total > 0 && last.done === last.total, JSON.stringify(last));
  } finally {
    client.close();
    await proxy.close();
    assert.equal(await server.stop(), 0, server.stderr());
  }
});
