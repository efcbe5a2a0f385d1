// The cancellation vocabulary: CancelledError's kinds and texts, the error an aborted signal stands for, and the
// signal plumbing (onAbort, link, deadline, sleep), including that disposers leave no listener on a source.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { CancelledError, abortReason, deadline, link, onAbort, sleep } from "../../../src/core/index.js";

const aborted = (reason?: unknown): AbortSignal => {
  const c = new AbortController();
  c.abort(reason);
  return c.signal;
};
const listeners = (signal: AbortSignal): number => getEventListeners(signal, "abort").length;

describe("CancelledError", () => {
  test("canceled reads as Go's context.Canceled and is named like DOM's AbortError", () => {
    const err = new CancelledError();
    assert.deepEqual([err.kind, err.message, err.name], ["canceled", "context canceled", "AbortError"]);
    assert.ok(err instanceof Error);
  });
  test("deadline reads as Go's context.DeadlineExceeded and is named like DOM's TimeoutError", () => {
    const err = new CancelledError("deadline");
    assert.deepEqual([err.kind, err.message, err.name], ["deadline", "context deadline exceeded", "TimeoutError"]);
  });
  test("is branded: an object carrying the brand counts as an instance, as from another copy of the module", () => {
    const other = Object.assign(new Error("context canceled"), { [Symbol.for("syncworker.CancelledError")]: true });
    assert.ok(other instanceof CancelledError);
    assert.ok(!(new Error("context canceled") instanceof CancelledError));
  });
});

describe("abortReason", () => {
  const cases: { name: string; reason: unknown; want: string; kind?: "canceled" | "deadline" }[] = [
    { name: "plain abort()", reason: undefined, want: "context canceled", kind: "canceled" },
    { name: "an Error reason keeps its message", reason: new Error("shutting down"), want: "shutting down" },
    { name: "a string reason", reason: "bye", want: "context canceled", kind: "canceled" },
    { name: "an Error without message", reason: new Error(""), want: "context canceled", kind: "canceled" },
    { name: "a DOM AbortError", reason: new DOMException("This operation was aborted", "AbortError"), want: "context canceled", kind: "canceled" },
    { name: "a DOM TimeoutError", reason: new DOMException("signal timed out", "TimeoutError"), want: "context deadline exceeded", kind: "deadline" },
    { name: "a CancelledError of kind deadline", reason: new CancelledError("deadline"), want: "context deadline exceeded", kind: "deadline" },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const err = abortReason(aborted(tc.reason));
      assert.equal(err.message, tc.want);
      if (tc.kind) {
        assert.ok(err instanceof CancelledError);
        assert.equal(err.kind, tc.kind);
      } else {
        assert.equal(err, tc.reason);
      }
    });
  }
  test("a CancelledError reason is returned as-is", () => {
    const reason = new CancelledError();
    assert.equal(abortReason(aborted(reason)), reason);
  });
  test("AbortSignal.timeout's reason is a deadline", async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    const err = abortReason(signal);
    assert.ok(err instanceof CancelledError);
    assert.equal(err.kind, "deadline");
  });
});

describe("onAbort", () => {
  test("calls fn once when the signal aborts", () => {
    const c = new AbortController();
    let calls = 0;
    onAbort(c.signal, () => calls++);
    assert.equal(calls, 0);
    c.abort();
    c.abort();
    assert.equal(calls, 1);
  });
  test("calls fn at once when the signal already aborted", () => {
    let calls = 0;
    onAbort(aborted(), () => calls++);
    assert.equal(calls, 1);
  });
  test("the disposer removes the listener", () => {
    const c = new AbortController();
    let calls = 0;
    const dispose = onAbort(c.signal, () => calls++);
    assert.equal(listeners(c.signal), 1);
    dispose();
    dispose();
    assert.equal(listeners(c.signal), 0);
    c.abort();
    assert.equal(calls, 0);
  });
});

describe("link", () => {
  test("aborts with the reason of the first source that aborts", () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = link(a.signal, b.signal);
    assert.ok(!signal.aborted);
    const why = new Error("b went away");
    b.abort(why);
    a.abort(new Error("later"));
    assert.ok(signal.aborted);
    assert.equal(signal.reason, why);
  });
  test("is aborted at once when a source already is, and skips undefined sources", () => {
    const why = new Error("gone");
    const live = new AbortController();
    const { signal } = link(undefined, live.signal, aborted(why));
    assert.ok(signal.aborted);
    assert.equal(signal.reason, why);
    assert.equal(listeners(live.signal), 0);
  });
  test("the disposer removes its listeners from every source, and the signal then stays unaborted", () => {
    const parent = new AbortController();
    const other = new AbortController();
    const linked = link(parent.signal, other.signal);
    assert.deepEqual([listeners(parent.signal), listeners(other.signal)], [1, 1]);
    linked.dispose();
    assert.deepEqual([listeners(parent.signal), listeners(other.signal)], [0, 0]);
    parent.abort();
    assert.ok(!linked.signal.aborted);
  });
  test("an abort removes its listeners from the other sources", () => {
    const parent = new AbortController();
    const other = new AbortController();
    link(parent.signal, other.signal);
    other.abort();
    assert.equal(listeners(parent.signal), 0);
  });
  test("many links on one long-lived parent leave no listener behind once disposed", () => {
    const parent = new AbortController();
    for (let i = 0; i < 1000; i++) link(parent.signal, new AbortController().signal).dispose();
    assert.equal(listeners(parent.signal), 0);
  });
});

describe("deadline", () => {
  test("aborts after ms with a CancelledError of kind deadline", async () => {
    const { signal } = deadline(5);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    const reason: unknown = signal.reason;
    assert.ok(reason instanceof CancelledError);
    assert.equal(reason.kind, "deadline");
    assert.equal(abortReason(signal).message, "context deadline exceeded");
  });
  test("aborts with the parent's reason when the parent aborts first", () => {
    const parent = new AbortController();
    const bounded = deadline(60_000, parent.signal);
    const why = new Error("request gone");
    parent.abort(why);
    assert.equal(bounded.signal.reason, why);
    bounded.dispose();
  });
  test("the disposer clears the timer and the listener on the parent", async () => {
    const parent = new AbortController();
    const bounded = deadline(5, parent.signal);
    assert.equal(listeners(parent.signal), 1);
    bounded.dispose();
    assert.equal(listeners(parent.signal), 0);
    await sleep(20);
    assert.ok(!bounded.signal.aborted);
  });
});

describe("sleep", () => {
  test("resolves after ms", async () => {
    await sleep(1);
  });
  test("rejects with the signal's own reason", async () => {
    const c = new AbortController();
    const why = new Error("stop");
    const slept = sleep(60_000, c.signal);
    c.abort(why);
    await assert.rejects(slept, (err) => err === why);
    await assert.rejects(sleep(1, aborted(why)), (err) => err === why);
  });
});
