// Access at the edge without a server: the token file's format and errors, roles per RPC, the review cache,
// and the check's refusals with their reasons.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Metadata } from "@grpc/grpc-js";
import { checkAccess, credentialsOf, RPC_ACCESS } from "../../../src/api/access.js";
import { AccessError } from "../../../src/api/errors.js";
import {
  CachedTokenAuthority,
  KubeTokenAuthority,
  StaticTokens,
  type AccessReviews,
  type RpcAccess,
  type TokenAuthority,
  type TokenDecision,
} from "../../../src/api/tokens.js";
import { ValueError } from "../../../src/config/index.js";

const dir = mkdtempSync(join(tmpdir(), "syncworker-access-"));
let files = 0;
function tokenFile(text: string): string {
  const file = join(dir, `tokens-${files++}.csv`);
  writeFileSync(file, text);
  return file;
}
const signal = new AbortController().signal;
const { update, notifyResourceActivity, getStatus, statusWatch } = RPC_ACCESS;

test("writes need the writer role, reads the reader role; writer implies reader", async () => {
  const tokens = StaticTokens.load(tokenFile("# comment\n\nwriter-secret-1,alice,writer\n  reader-secret-1 , bob , reader \n"));
  for (const access of [update, notifyResourceActivity, getStatus, statusWatch]) {
    assert.deepEqual(await tokens.review("writer-secret-1", access), { outcome: "allowed", user: "alice" }, access.rpc);
  }
  for (const access of [getStatus, statusWatch]) assert.equal((await tokens.review("reader-secret-1", access)).outcome, "allowed", access.rpc);
  for (const access of [update, notifyResourceActivity]) {
    const decision = await tokens.review("reader-secret-1", access);
    assert.equal(decision.outcome, "denied", access.rpc);
    assert.match((decision as { reason: string }).reason, /needs the writer role/);
  }
  assert.equal((await tokens.review("writer-secret-2", getStatus)).outcome, "unauthenticated");
});

const BAD_LINES: [name: string, text: string, line: number, says: RegExp][] = [
  ["two fields", "good-token-1,alice,writer\nshort-line-token,bob\n", 2, /2 fields instead of 3/],
  ["an unknown role", "good-token-1,alice,admin\n", 1, /"admin" is not a role/],
  ["an empty user", "# a\ngood-token-1,,reader\n", 2, /user is empty/],
  ["a short token", "abc,alice,reader\n", 1, /shorter than 8/],
  ["a duplicate token", "good-token-1,alice,reader\ngood-token-1,bob,writer\n", 2, /already listed/],
];
for (const [name, text, line, says] of BAD_LINES) {
  test(`a token file with ${name} is a start-up error naming file and line`, () => {
    const file = tokenFile(text);
    assert.throws(
      () => StaticTokens.load(file),
      (err: unknown) => err instanceof ValueError && err.option === "token-file" && err.message.includes(`${file}:${line}:`) && says.test(err.message),
    );
  });
}

test("an empty or missing token file is a start-up error", () => {
  assert.throws(() => StaticTokens.load(tokenFile("# nobody\n")), /lists no tokens/);
  assert.throws(() => StaticTokens.load(join(dir, "missing.csv")), /cannot read .*missing\.csv/);
});

/** A call as grpc-js hands it to a handler, with the headers and the TLS peer the test chooses. */
function call(headers: Record<string, string>, certificate = false) {
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(headers)) metadata.set(k, v);
  return credentialsOf({
    metadata,
    getAuthContext: () => (certificate ? { transportSecurityType: "ssl", sslPeerCertificate: { subject: { CN: "test-client" } } as never } : {}),
  });
}

async function refusal(promise: Promise<unknown>): Promise<AccessError> {
  const err = await promise.then(
    () => assert.fail("the call was allowed"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AccessError, `not an AccessError: ${String(err)}`);
  return err;
}

test("checkAccess: a missing certificate or token is Unauthenticated; a reader calling Update is PermissionDenied", async () => {
  const tokens = StaticTokens.load(tokenFile("writer-secret-1,alice,writer\nreader-secret-1,bob,reader\n"));
  const mtls = { requireClientCertificate: true, tokens };
  const noCert = await refusal(checkAccess(mtls, getStatus, call({ authorization: "Bearer writer-secret-1" }), signal));
  assert.deepEqual([noCert.reason, noCert.rpc], ["Unauthenticated", "GetStatus"]);
  assert.match(noCert.message, /client certificate/);
  const noToken = await refusal(checkAccess(mtls, getStatus, call({}, true), signal));
  assert.match(noToken.message, /needs a bearer token/);
  const notBearer = await refusal(checkAccess(mtls, getStatus, call({ authorization: "Basic writer-secret-1" }, true), signal));
  assert.equal(notBearer.reason, "Unauthenticated");
  const wrong = await refusal(checkAccess(mtls, getStatus, call({ authorization: "Bearer wrong-secret" }, true), signal));
  assert.match(wrong.message, /not in the server's --token-file/);
  const reader = await refusal(checkAccess(mtls, update, call({ authorization: "Bearer reader-secret-1" }, true), signal));
  assert.deepEqual([reader.reason, reader.rpc], ["PermissionDenied", "Update"]);
  assert.match(reader.message, /"bob" may not call Update/);
  assert.equal(await checkAccess(mtls, update, call({ authorization: "bearer writer-secret-1" }, true), signal), "alice");
  assert.equal(await checkAccess({ requireClientCertificate: true }, update, call({}, true), signal), "certificate CN=test-client");
});

test("checkAccess: an authority that cannot be reached is AuthorityUnavailable, not a refusal of the caller", async () => {
  const down: TokenAuthority = { review: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6443")) };
  const err = await refusal(checkAccess({ requireClientCertificate: false, tokens: down }, getStatus, call({ authorization: "Bearer some-token" }), signal));
  assert.equal(err.reason, "AuthorityUnavailable");
  assert.match(err.message, /ECONNREFUSED/);
});

/** Reviews as the API server answers them, counted; `grants` lists user/verb pairs RBAC allows. */
class FakeReviews implements AccessReviews {
  readonly namespace = "syncworker";
  tokenReviews = 0;
  accessReviews = 0;
  constructor(
    private readonly users: Record<string, string>,
    private readonly grants: Set<string>,
  ) {}
  async reviewToken(token: string) {
    this.tokenReviews++;
    const username = this.users[token];
    return username ? { user: { username, groups: ["system:authenticated"] } } : { error: "invalid bearer token" };
  }
  async reviewAccess(user: { username: string }, attributes: { group: string; resource: string; verb: string }) {
    this.accessReviews++;
    assert.deepEqual([attributes.group, attributes.resource], ["syncworker.openshift.io", "syncworkers"]);
    return { allowed: this.grants.has(`${user.username}/${attributes.verb}`), reason: "" };
  }
}

test("KubeTokenAuthority: TokenReview decides who, SubjectAccessReview with the RPC's verb decides what", async () => {
  const reviews = new FakeReviews({ t1: "system:serviceaccount:ns:writer" }, new Set(["system:serviceaccount:ns:writer/get"]));
  const kube = new KubeTokenAuthority(reviews);
  assert.deepEqual(await kube.review("t1", getStatus, signal), { outcome: "allowed", user: "system:serviceaccount:ns:writer" });
  const denied = await kube.review("t1", update, signal);
  assert.equal(denied.outcome, "denied");
  assert.match((denied as { reason: string }).reason, /verb "update" on syncworkers\.syncworker\.openshift\.io in namespace "syncworker"/);
  const bad = await kube.review("t2", getStatus, signal);
  assert.deepEqual(bad, { outcome: "unauthenticated", reason: "the cluster did not accept the bearer token: invalid bearer token" });
});

test("the review cache: allowed decisions kept 30 s, refusals 10 s, concurrent reviews joined, failures not kept, size bounded", async () => {
  const reviews = new FakeReviews({ t1: "u1", t2: "u2" }, new Set(["u1/get"]));
  let now = 0;
  const cache = new CachedTokenAuthority(new KubeTokenAuthority(reviews), () => now, {
    allowedTtlMs: 30_000,
    refusedTtlMs: 10_000,
    maxEntries: 3,
    reviewTimeoutMs: 1_000,
  });
  const joined = await Promise.all(Array.from({ length: 100 }, () => cache.review("t1", getStatus)));
  assert.ok(joined.every((d) => d.outcome === "allowed"));
  assert.equal(reviews.tokenReviews, 1, "a hundred concurrent calls cost one review");
  now = 29_999;
  await cache.review("t1", getStatus);
  assert.equal(reviews.tokenReviews, 1);
  now = 30_001;
  await cache.review("t1", getStatus);
  assert.equal(reviews.tokenReviews, 2, "expired after 30 s");

  assert.equal((await cache.review("t2", getStatus)).outcome, "denied");
  now += 9_999;
  await cache.review("t2", getStatus);
  assert.equal(reviews.tokenReviews, 3);
  now += 2;
  await cache.review("t2", getStatus);
  assert.equal(reviews.tokenReviews, 4, "a refusal expires after 10 s");

  await cache.review("t1", update);
  await cache.review("t3", getStatus);
  assert.equal(cache.size, 3, "the oldest entry made room");

  let fail = true;
  const flaky: TokenAuthority = {
    review: async (): Promise<TokenDecision> => {
      if (fail) throw new Error("timeout");
      return { outcome: "allowed", user: "u" };
    },
  };
  const flakyCache = new CachedTokenAuthority(flaky, () => now);
  await assert.rejects(flakyCache.review("t1", getStatus), /timeout/);
  fail = false;
  assert.equal((await flakyCache.review("t1", getStatus)).outcome, "allowed", "a failure is asked again, not cached");
});

test("every RPC of the service has an entry, and only the reads GetStatus and StatusWatch are open to readers", () => {
  const readers = Object.values(RPC_ACCESS as Record<string, RpcAccess>)
    .filter((a) => a.role === "reader")
    .map((a) => a.rpc)
    .sort();
  assert.deepEqual(readers, ["GetStatus", "StatusWatch"]);
});
