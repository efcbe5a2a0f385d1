import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A manifest of a generated payload: its file name under release-manifests/ and its object. */
export interface GeneratedManifest {
  readonly file: string;
  readonly obj: {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
    [k: string]: unknown;
  };
}

/** Writes a release payload directory: metadata, image references, and one JSON manifest per file. */
export async function writePayload(dir: string, version: string, manifests: readonly GeneratedManifest[]): Promise<void> {
  const release = join(dir, "release-manifests");
  await mkdir(release, { recursive: true });
  await mkdir(join(dir, "manifests"), { recursive: true });
  await writeFile(join(release, "release-metadata"), JSON.stringify({ kind: "cincinnati-metadata-v0", version, previous: [], metadata: {} }));
  await writeFile(
    join(release, "image-references"),
    JSON.stringify({ kind: "ImageStream", apiVersion: "image.openshift.io/v1", metadata: { name: version }, spec: { tags: [] } }),
  );
  for (const { file, obj } of manifests) await writeFile(join(release, file), JSON.stringify(obj));
}

/** Which of two generated releases: `b` is an update of `a` (new versions, an edited ConfigMap, a new component, deletions). */
export type ReleaseVariant = "a" | "b";

export interface ReleaseSpec {
  readonly version: string;
  readonly variant?: ReleaseVariant;
  /** How many components (operators); 30 gives a few hundred manifests across run levels 00-90. */
  readonly components?: number;
}

const RUN_LEVELS = ["00", "03", "05", "10", "20", "25", "30", "40", "50", "70", "80", "90"] as const;
/** Capabilities of the spec's CVO revision and later (src/policy/capabilities.ts knows them all). */
const CAPABILITIES = ["Console", "Insights", "Storage", "CSISnapshot", "NodeTuning", "marketplace", "openshift-samples", "baremetal"] as const;
const SHA = (n: number): string => `sha256:${n.toString(16).padStart(64, "0")}`;

/**
 * The manifests of a deterministic release payload with the shapes of an OpenShift one: per component a
 * Namespace, RBAC, a CRD and a custom resource of it, a ConfigMap, a Service, a Deployment, DaemonSet or Job, and
 * for most a ClusterOperator reporting its version; some components belong to a capability, some manifests only to
 * a profile or a feature set, some are excluded from hosted installs, and a few are deleted. Variant `b` updates variant `a`.
 */
export function releaseManifests(spec: ReleaseSpec): GeneratedManifest[] {
  const { version, variant = "a", components = 30 } = spec;
  const count = variant === "b" ? components + 1 : components;
  const out: GeneratedManifest[] = [];
  for (let i = 0; i < count; i++) {
    const level = RUN_LEVELS[i % RUN_LEVELS.length] ?? "50";
    const name = `component-${String(i).padStart(2, "0")}`;
    const ns = `openshift-${name}`;
    const file = (n: number, what: string): string => `0000_${level}_${name}_${String(n).padStart(2, "0")}_${what}.json`;
    const profiles: Record<string, string> = { "include.release.openshift.io/self-managed-high-availability": "true" };
    if (i % 3 === 0) profiles["include.release.openshift.io/hypershift"] = "true";
    if (i % 2 === 0) profiles["include.release.openshift.io/single-node-developer"] = "true";
    const capability = i % 4 === 3 ? CAPABILITIES[(i >> 2) % CAPABILITIES.length] : undefined;
    const annotations = (extra: Record<string, string> = {}): Record<string, string> => ({
      ...profiles,
      ...(capability ? { "capability.openshift.io/name": capability } : {}),
      ...extra,
    });
    const meta = (n: string, namespace?: string, extra?: Record<string, string>) => ({
      name: n,
      ...(namespace ? { namespace } : {}),
      annotations: annotations(extra),
    });
    const group = `${name}.example.io`;
    const labels = { app: name };
    const podSpec = {
      metadata: { labels },
      spec: { serviceAccountName: name, containers: [{ name, image: `quay.io/example/${name}@${SHA(i + 1)}`, args: [`--version=${version}`] }] },
    };
    out.push(
      { file: file(0, "namespace"), obj: { apiVersion: "v1", kind: "Namespace", metadata: meta(ns) } },
      {
        file: file(1, "crd"),
        obj: {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: meta(`widgets.${group}`),
          spec: {
            group,
            scope: "Cluster",
            names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
            versions: [
              { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
            ],
          },
        },
      },
      { file: file(2, "serviceaccount"), obj: { apiVersion: "v1", kind: "ServiceAccount", metadata: meta(name, ns) } },
      {
        file: file(3, "clusterrole"),
        obj: {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: meta(`system:openshift:${name}`),
          rules: [{ apiGroups: [group], resources: ["widgets"], verbs: ["*"] }],
        },
      },
      {
        file: file(4, "clusterrolebinding"),
        obj: {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: meta(`system:openshift:${name}`),
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `system:openshift:${name}` },
          subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
        },
      },
      // Variant b edits every fifth component's configuration.
      {
        file: file(5, "configmap"),
        obj: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: meta(`${name}-config`, ns),
          data: { "config.yaml": `logLevel: ${variant === "b" && i % 5 === 0 ? "Debug" : "Normal"}\n` },
        },
      },
      {
        file: file(6, "service"),
        // Some services are left out of hosted installs, as real payloads mark theirs (--exclude).
        obj: {
          apiVersion: "v1",
          kind: "Service",
          metadata: meta(name, ns, i % 6 === 1 ? { "exclude.release.openshift.io/internal-openshift-hosted": "true" } : {}),
          spec: { selector: labels, ports: [{ name: "metrics", port: 8443, targetPort: 8443 }] },
        },
      },
      { file: file(7, "widget"), obj: { apiVersion: `${group}/v1`, kind: "Widget", metadata: meta("cluster"), spec: { level: Number(level) } } },
    );
    if (i % 7 === 2) {
      // A Job's pod template is immutable, so a release ships it as the previous one did (no version in it): an
      // update that changed it could not be applied, here as upstream.
      const container = { name, image: `quay.io/example/${name}@${SHA(i + 1)}`, args: ["--migrate"] };
      const template = { metadata: { labels }, spec: { serviceAccountName: name, containers: [container], restartPolicy: "Never" } };
      out.push({ file: file(8, "job"), obj: { apiVersion: "batch/v1", kind: "Job", metadata: meta(`${name}-migrate`, ns), spec: { template } } });
    } else {
      const kind = i % 5 === 1 ? "DaemonSet" : "Deployment";
      out.push({
        file: file(8, kind.toLowerCase()),
        obj: { apiVersion: "apps/v1", kind, metadata: meta(name, ns), spec: { selector: { matchLabels: labels }, template: podSpec } },
      });
    }
    // Feature-set variants of one manifest, as the CRDs of features in preview ship.
    if (i % 6 === 4) {
      for (const set of ["Default", "TechPreviewNoUpgrade"]) {
        out.push({
          file: file(9, `flags-${set}`),
          obj: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: meta(`${name}-flags`, ns, { "release.openshift.io/feature-set": set }),
            data: { featureSet: set },
          },
        });
      }
    }
    // Leftovers of older releases that this one removes; variant b removes one more.
    if (i % 8 === 5 || (variant === "b" && i === 1)) {
      out.push({
        file: file(10, "legacy"),
        obj: { apiVersion: "v1", kind: "ConfigMap", metadata: meta(`${name}-legacy`, ns, { "release.openshift.io/delete": "true" }) },
      });
    }
    if (i % 4 !== 1) {
      out.push({
        file: file(11, "clusteroperator"),
        obj: {
          apiVersion: "config.openshift.io/v1",
          kind: "ClusterOperator",
          metadata: meta(name),
          spec: {},
          status: { versions: [{ name: "operator", version }] },
        },
      });
    }
  }
  return out;
}

/** The cluster-version operator's own manifests: templates rendered at load time (manifests/ of a payload). */
const TEMPLATES: Record<string, string> = {
  "0000_00_cluster-version-operator_00_namespace.yaml": `apiVersion: v1
kind: Namespace
metadata:
  name: openshift-cluster-version
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
`,
  // The CVO's image brings the ClusterVersion CRD, so an installer can create ClusterVersion version after it.
  "0000_00_cluster-version-operator_01_clusterversions.crd.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterversions.config.openshift.io
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
spec:
  group: config.openshift.io
  scope: Cluster
  names: {kind: ClusterVersion, listKind: ClusterVersionList, plural: clusterversions, singular: clusterversion}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`,
  "0000_00_cluster-version-operator_03_deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-version-operator
  namespace: openshift-cluster-version
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
spec:
  # As the CVO's own Deployment: two operators must never run side by side (and a real payload's Recreate
  # Deployment applied over this one must not inherit a rollingUpdate it forbids).
  strategy: {type: Recreate}
  selector:
    matchLabels: {k8s-app: cluster-version-operator}
  template:
    metadata:
      labels: {k8s-app: cluster-version-operator}
    spec:
      containers:
      - name: cluster-version-operator
        image: {{.ReleaseImage}}
        args: ["--release-image={{.ReleaseImage}}"]
        env:
        - name: CLUSTER_PROFILE
          value: {{ .ClusterProfile }}
`,
};

/**
 * Writes a generated release (releaseManifests) as a payload directory: release-manifests/ with metadata and
 * image-references naming every component's image, and manifests/ with the operator's templates. Returns `dir`.
 */
export async function writeRelease(dir: string, spec: ReleaseSpec): Promise<string> {
  const manifests = releaseManifests(spec);
  await writePayload(dir, spec.version, manifests);
  const images = [...new Set(manifests.map((m) => /^0000_\d\d_(component-\d\d)_/.exec(m.file)?.[1] ?? ""))].filter(Boolean);
  const tags = images.map((name, i) => ({ name, from: { kind: "DockerImage", name: `quay.io/example/${name}@${SHA(i + 1)}` } }));
  await writeFile(
    join(dir, "release-manifests", "image-references"),
    JSON.stringify({ kind: "ImageStream", apiVersion: "image.openshift.io/v1", metadata: { name: spec.version }, spec: { tags } }),
  );
  for (const [file, text] of Object.entries(TEMPLATES)) await writeFile(join(dir, "manifests", file), text);
  return dir;
}

/** A generated release (1.0.0, variant a, unless `spec` says otherwise) in a fresh temp dir. */
export async function tempRelease(spec: ReleaseSpec = { version: "1.0.0" }): Promise<string> {
  return writeRelease(await mkdtemp(join(tmpdir(), "syncworker-release-")), spec);
}

/**
 * Releases `a` (1.0.0) and `b` (1.1.0, an update of `a`), as the behaviour tests use them; `components` as in
 * ReleaseSpec (30 unless given), for tests whose every object must become ready again on an empty cluster.
 */
export async function writeReleases(components?: number): Promise<{ a: string; b: string }> {
  const size = components === undefined ? {} : { components };
  return { a: await tempRelease({ version: "1.0.0", ...size }), b: await tempRelease({ version: "1.1.0", variant: "b", ...size }) };
}

/** The name of the manifest withUnservedKind adds. */
export const UNSERVED_FLOWSCHEMA = "component-08-legacy-flows";

/**
 * Adds to the release in `dir` a FlowSchema at flowcontrol.apiserver.k8s.io/v1beta3, a version Kubernetes stopped
 * serving in 1.32 that no manifest brings a CRD for (real-a ships one such): a kind the cluster does not serve.
 * Returns `dir`.
 */
export async function withUnservedKind(dir: string): Promise<string> {
  const obj = {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta3",
    kind: "FlowSchema",
    metadata: { name: UNSERVED_FLOWSCHEMA, annotations: { "include.release.openshift.io/self-managed-high-availability": "true" } },
    spec: { priorityLevelConfiguration: { name: "workload-high" }, matchingPrecedence: 1000 },
  };
  await writeFile(join(dir, "release-manifests", "0000_50_component-08_12_flowschema.json"), JSON.stringify(obj));
  return dir;
}
