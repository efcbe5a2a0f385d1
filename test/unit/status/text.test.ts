import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import {
  boundStatus,
  EMPTY_CLUSTER_VERSION,
  listText,
  MAX_STATUS_TEXT,
  redactCredentials,
  truncateText,
  type ServiceStatus,
} from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";

test("listText lists up to its bound, then says how many more", () => {
  assert.equal(listText(["a", "b", "c"]), "a, b, c");
  assert.equal(listText(["a", "b", "c"], 2), "a, b … and 1 more");
  const platforms = Array.from({ length: 300_000 }, (_, i) => `foreign/arch${i}`);
  const text = listText(platforms);
  assert.ok(text.endsWith("… and 299950 more") && text.length < 2000, text.slice(-100));
  assert.equal(listText([]), "");
});

test("truncateText keeps short texts and cuts long ones, counting the rest, never inside a surrogate pair", () => {
  assert.equal(truncateText("short", 10), "short");
  assert.equal(truncateText("x".repeat(30), 10), `${"x".repeat(10)} … and 20 more characters`);
  const cut = truncateText(`${"x".repeat(9)}😀tail`, 10);
  assert.equal(cut, `${"x".repeat(9)} … and 6 more characters`);
});

test("redactCredentials replaces every URL's user name and password, wherever it is in the text", () => {
  assert.equal(redactCredentials("http://user:password@sigs.example:8080/x"), "http://redacted@sigs.example:8080/x");
  assert.equal(redactCredentials("see https://token@host/a and ftp://u:p@h."), "see https://redacted@host/a and ftp://redacted@h.");
  // WHATWG: the userinfo ends at the last "@" of the authority, so a password holding "@" is redacted whole.
  assert.equal(
    redactCredentials("unable to retrieve signature from http://u:p@ss@host/sha256=1/signature-1: 404"),
    "unable to retrieve signature from http://redacted@host/sha256=1/signature-1: 404",
  );
  assert.equal(redactCredentials('{"msg":"GET http://u:pw@h/v2/ failed"}'), '{"msg":"GET http://redacted@h/v2/ failed"}');
  // Text without userinfo is unchanged: an e-mail address, an image by digest, a URL whose path holds "@".
  for (const text of ["mail admin@example.com", "quay.io/r/i@sha256:abc", "https://host/path/a@b", "http://host/?q=a@b"])
    assert.equal(redactCredentials(text), text);
});

test("boundStatus redacts and cuts every status text, keeping a failure's class and fields", () => {
  const url = "http://user:secret@sigs.example/store";
  const huge = `the image index has no manifest for linux/amd64 (it has ${"foreign/x, ".repeat(100_000)})`;
  const failure = new UpdateError({ reason: "UpdatePayloadRetrievalFailed", message: `${huge} ${url}`, effect: "Report", name: "payload" });
  const status: ServiceStatus = {
    worker: {
      ...EMPTY_STATUS,
      failure,
      loadPayloadStatus: {
        ...EMPTY_STATUS.loadPayloadStatus,
        message: `Retrieving payload failed ${huge}`,
        failure,
        acceptedRisks: `signature store under ${url}`,
      },
    },
    clusterVersion: {
      ...EMPTY_CLUSTER_VERSION,
      message: huge,
      conditions: [{ type: "Failing", status: "True", reason: "x", message: huge, lastTransitionTime: new Date(0) }],
      history: [{ state: "Completed", version: "1", image: "img", verified: false, startedTime: new Date(0), acceptedRisks: `forced despite ${url}` }],
    },
  };
  const bounded = boundStatus(status);
  const json = JSON.stringify(bounded, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v));
  assert.ok(!json.includes("secret"), "no password anywhere");
  assert.ok(json.length < 10 * MAX_STATUS_TEXT, `${json.length} characters`);
  const bf = bounded.worker.failure;
  assert.ok(bf instanceof UpdateError && bf.reason === "UpdatePayloadRetrievalFailed" && bf.effect === "Report" && bf.objectName === "payload");
  assert.match(bf.message, /… and \d+ more characters$/);
  assert.equal(bounded.clusterVersion.history[0]?.acceptedRisks, "forced despite http://redacted@sigs.example/store");
  assert.equal(bounded.worker.loadPayloadStatus.acceptedRisks, "signature store under http://redacted@sigs.example/store");
  // A status with nothing to cut keeps its failure object.
  const small = new Error("small");
  assert.equal(boundStatus({ ...status, worker: { ...EMPTY_STATUS, failure: small } }).worker.failure, small);
});
