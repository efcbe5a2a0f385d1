import assert from "node:assert/strict";
import { test } from "node:test";
import { LeaderElector, type LeaseClient, type LeaseRecord } from "../../../src/service/index.js";
import { ManualClock, settle } from "../../harness/manual-clock.js";

/** One Lease in memory with optimistic concurrency, shared by the candidates; `down` makes every call fail. */
class MemoryLease {
  record: LeaseRecord | undefined;
  version = 0;
  down = false;
  writes: string[] = [];

  client(): LeaseClient {
    const check = (): void => {
      if (this.down) throw new Error("connection refused");
    };
    return {
      where: "Lease test/leader",
      get: async () => {
        check();
        return this.record ? { record: this.record, version: String(this.version) } : undefined;
      },
      create: async (record) => {
        check();
        if (this.record) throw new Error("AlreadyExists");
        this.#write(record);
      },
      update: async (record, version) => {
        check();
        if (version !== String(this.version)) throw new Error("Conflict");
        this.#write(record);
      },
    };
  }

  #write(record: LeaseRecord): void {
    this.record = record;
    this.version++;
    this.writes.push(record.holderIdentity);
  }
}

const TIMING = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** A candidate that records its terms: when each began and ended on the fake clock. */
function candidate(lease: MemoryLease, clock: ManualClock, identity: string) {
  const elector = new LeaderElector(lease.client(), identity, clock, () => 0, TIMING);
  const terms: Array<{ from: number; to?: number }> = [];
  const leaders: string[] = [];
  const controller = new AbortController();
  const running = elector.run(
    {
      lead: (term) =>
        new Promise<void>((resolve) => {
          const entry: { from: number; to?: number } = { from: clock.now().getTime() };
          terms.push(entry);
          term.addEventListener("abort", () => {
            entry.to = clock.now().getTime();
            resolve();
          });
        }),
      newLeader: (id) => leaders.push(id),
    },
    controller.signal,
  );
  return { elector, terms, leaders, stop: async () => (controller.abort(), await running), leading: () => terms.some((t) => t.to === undefined) };
}

test("one of two candidates leads; the other waits and sees who leads", async () => {
  const clock = new ManualClock();
  const lease = new MemoryLease();
  const a = candidate(lease, clock, "a");
  const b = candidate(lease, clock, "b");
  await clock.advance(30_000);
  assert.equal(a.leading(), true);
  assert.equal(b.leading(), false);
  assert.equal(b.elector.leader, "a");
  assert.deepEqual(b.leaders, ["a"]);
  assert.ok(lease.writes.filter((w) => w === "a").length >= 15, "the leader renews every retry period");
  assert.ok(!lease.writes.includes("b"));
  await a.stop();
  await b.stop();
});

test("a stopped leader releases the Lease and the standby takes over at its next attempt", async () => {
  const clock = new ManualClock();
  const lease = new MemoryLease();
  const a = candidate(lease, clock, "a");
  await clock.advance(0);
  const b = candidate(lease, clock, "b");
  await clock.advance(4_000);
  await a.stop();
  assert.equal(lease.record?.holderIdentity, "", "released");
  const stoppedAt = clock.now().getTime();
  await clock.advance(2_500);
  assert.equal(b.leading(), true);
  assert.ok(b.terms[0]!.from - stoppedAt <= TIMING.retryPeriodMs * 1.2);
  assert.equal(lease.record?.leaseTransitions, 1, "one transition: from a to b");
  await b.stop();
});

test("a leader that dies is replaced only after a whole lease duration without renewal", async () => {
  const clock = new ManualClock();
  const lease = new MemoryLease();
  const a = candidate(lease, clock, "a");
  await clock.advance(0);
  const b = candidate(lease, clock, "b");
  await clock.advance(6_000);
  // "a" dies without releasing: its loop stops, the Lease keeps its last renewal.
  const lastRenewal = lease.record!.renewTime.getTime();
  const died = a.stop();
  lease.down = true; // its release fails too, as for a killed process
  await died;
  lease.down = false;
  await clock.advance(30_000);
  const takeover = b.terms[0]!.from;
  assert.ok(takeover - lastRenewal >= TIMING.leaseDurationMs, `not before the lease expired (${takeover - lastRenewal} ms)`);
  assert.ok(takeover - lastRenewal <= TIMING.leaseDurationMs + 2 * TIMING.retryPeriodMs * 1.2, `soon after (${takeover - lastRenewal} ms)`);
  await b.stop();
});

test("a leader that cannot renew stops leading before its lease can expire", async () => {
  const clock = new ManualClock();
  const lease = new MemoryLease();
  const a = candidate(lease, clock, "a");
  await clock.advance(0);
  const renewedAt = lease.record!.renewTime.getTime();
  lease.down = true;
  await clock.advance(20_000);
  const ended = a.terms[0]!.to;
  assert.ok(ended !== undefined, "the term ended");
  assert.ok(
    ended - renewedAt < TIMING.leaseDurationMs,
    `stopped ${ended - renewedAt} ms after its last renewal, before the ${TIMING.leaseDurationMs} ms lease ran out`,
  );
  lease.down = false;
  await clock.advance(4_000);
  assert.equal(a.terms.length, 2, "it campaigns again once the API server answers, and leads again");
  await a.stop();
  await settle();
});

test("a leader that sees another holder stops at once", async () => {
  const clock = new ManualClock();
  const lease = new MemoryLease();
  const a = candidate(lease, clock, "a");
  await clock.advance(0);
  lease.record = { ...lease.record!, holderIdentity: "intruder", renewTime: clock.now() };
  lease.version++;
  await clock.advance(2_000);
  assert.equal(a.leading(), false);
  assert.deepEqual(a.leaders, ["a", "intruder"]);
  await a.stop();
});

test("timings that would let a leader outlive its lease are refused", () => {
  const lease = new MemoryLease();
  assert.throws(
    () => new LeaderElector(lease.client(), "a", new ManualClock(), () => 0, { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
    /renew deadline/,
  );
});
