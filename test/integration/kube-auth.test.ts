// --authn kube on the real kube-apiserver: ServiceAccount tokens (minted with the TokenRequest API) are reviewed
// with TokenReview and each call is authorized with a SubjectAccessReview of its verb on
// syncworkers.syncworker.openshift.io in the service's namespace, as kube-rbac-proxy does.
import assert from "node:assert/strict";
import { Code, SyncWorkerClient, SyncWorkerError } from "../../clients/ts/src/index.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { startServer, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const NAMESPACE = "syncworker-authz";
let cp: ControlPlane;
let server: ServerProcess;
const tokens: Record<string, string> = {};

async function bind(account: string, role: string): Promise<void> {
  await cp.api.must("POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: `${account}-${role}` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ kind: "ServiceAccount", name: account, namespace: NAMESPACE }],
  });
}

before(
  async () => {
    cp = await startControlPlane();
    await cp.api.must("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } });
    // The ClusterRoles docs/security.md shows.
    for (const [name, verbs] of [
      ["syncworker-reader", ["get", "watch"]],
      ["syncworker-writer", ["get", "watch", "update"]],
    ] as const) {
      await cp.api.must("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name },
        rules: [{ apiGroups: ["syncworker.openshift.io"], resources: ["syncworkers"], verbs }],
      });
    }
    for (const account of ["reader", "writer", "nobody"]) {
      await cp.api.must("POST", `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: account } });
      const request = (await cp.api.must("POST", `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${account}/token`, {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 3600 },
      })) as { status: { token: string } };
      tokens[account] = request.status.token;
    }
    await bind("reader", "syncworker-reader");
    await bind("writer", "syncworker-writer");
    server = await startServer(["--kubeconfig", cp.kubeconfig, "--namespace", NAMESPACE, "--authn", "kube", "--reconcile-interval", "60s"]);
  },
  { timeout: 90 * 60_000 },
);
after(async () => {
  if (server) assert.equal(await server.stop(), 0, server.stderr());
  await cp?.stop();
});

async function as<T>(token: string | undefined, fn: (c: SyncWorkerClient) => Promise<T>): Promise<T> {
  const client = new SyncWorkerClient(server.address, { timeoutMs: 15_000, ...(token !== undefined ? { token } : {}) });
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

async function refused(call: Promise<unknown>): Promise<SyncWorkerError> {
  const err = await call.then(
    () => assert.fail("the call succeeded"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof SyncWorkerError, String(err));
  return err;
}

test("a ServiceAccount token with the RBAC rule is allowed, without it PERMISSION_DENIED; an invalid token UNAUTHENTICATED", { timeout: 120_000 }, async () => {
  const missing = await as(undefined, (c) => refused(c.getStatus()));
  assert.equal(missing.code, Code.Unauthenticated);
  const invalid = await as("not-a-service-account-token", (c) => refused(c.getStatus()));
  assert.equal(invalid.code, Code.Unauthenticated);
  assert.match(invalid.rawMessage, /the cluster did not accept the bearer token/);

  const nobody = await as(tokens["nobody"], (c) => refused(c.getStatus()));
  assert.equal(nobody.code, Code.PermissionDenied);
  assert.match(
    nobody.rawMessage,
    new RegExp(
      `"system:serviceaccount:${NAMESPACE}:nobody" may not call GetStatus: it needs verb "get" on syncworkers\\.syncworker\\.openshift\\.io in namespace "${NAMESPACE}"`,
    ),
  );

  await as(tokens["reader"], async (c) => {
    assert.equal((await c.getStatus()).generation, 0);
    for await (const status of c.watchStatus({ signal: AbortSignal.timeout(15_000) })) if (status.revision > 0) break;
    const write = await refused(c.update({ generation: 1, desired: { image: "/nonexistent/payload" } }));
    assert.equal(write.code, Code.PermissionDenied);
    assert.match(write.rawMessage, /may not call Update: it needs verb "update"/);
  });

  await as(tokens["writer"], async (c) => {
    assert.equal(typeof (await c.notify("kube-auth test")), "boolean");
    assert.equal((await c.getStatus()).generation, 0);
  });
});

test("a grant made while the service runs takes effect once the cached refusal expires (10 s)", { timeout: 60_000 }, async () => {
  const token = tokens["nobody"]!;
  assert.equal((await as(token, (c) => refused(c.notify("before")))).code, Code.PermissionDenied);
  await bind("nobody", "syncworker-writer");
  const granted = Date.now();
  for (;;) {
    const result = await as(token, (c) =>
      c.notify("after").then(
        () => "ok",
        (err: unknown) => err,
      ),
    );
    if (result === "ok") break;
    assert.ok(result instanceof SyncWorkerError && result.code === Code.PermissionDenied, String(result));
    assert.ok(Date.now() - granted < 15_000, "still refused 15 s after the grant");
    await new Promise((r) => setTimeout(r, 500));
  }
});
