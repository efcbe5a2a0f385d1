/**
 * OCI image references (`host[:port]/repo[:tag][@sha256:hex]`), parsed as the distribution reference grammar
 * does for the parts a release pull spec uses. A name without a registry host is Docker Hub's, as every
 * container tool reads it.
 */

/** A parsed image reference. Exactly what is needed to address the distribution API. */
export interface ImageReference {
  /** Registry host with optional port, as written (`quay.io`, `127.0.0.1:5000`). */
  readonly registry: string;
  /** Repository path (`openshift-release-dev/ocp-release`). */
  readonly repository: string;
  readonly tag?: string;
  /** `sha256:<64 hex>` when pulled by digest. */
  readonly digest?: string;
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOCKER_HUB = "docker.io";

/** True for a `sha256:<64 lowercase hex>` digest, the only algorithm release images use. */
export function isDigest(text: string): boolean {
  return DIGEST.test(text);
}

/** Parses `text`, or throws an Error naming what is wrong with it. */
export function parseReference(text: string): ImageReference {
  const bad = (why: string): Error => new Error(`invalid image reference ${JSON.stringify(text)}: ${why}`);
  let rest = text;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isDigest(digest)) throw bad(`digest ${JSON.stringify(digest)} is not sha256:<64 hex digits>`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw bad(`tag ${JSON.stringify(tag)} is not a valid tag`);
  }
  const slash = rest.indexOf("/");
  const first = slash < 0 ? "" : rest.slice(0, slash);
  // The distribution rule: a first component with a dot or a port, or `localhost`, is a registry host.
  const hasHost = first !== "" && (first.includes(".") || first.includes(":") || first === "localhost");
  const registry = hasHost ? first : DOCKER_HUB;
  let repository = hasHost ? rest.slice(slash + 1) : rest;
  if (!hasHost && !repository.includes("/")) repository = `library/${repository}`;
  if (repository === "" || !repository.split("/").every((c) => COMPONENT.test(c))) throw bad("the repository name must be lowercase path components");
  if (!tag && !digest) throw bad("it names neither a tag nor a digest");
  return { registry, repository, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

/** `registry/repository@digest`: the pull spec that names exactly one image. */
export function byDigest(ref: ImageReference, digest: string): string {
  return `${ref.registry}/${ref.repository}@${digest}`;
}
