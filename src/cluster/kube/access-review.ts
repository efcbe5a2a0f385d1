import type { AccessReviews, ReviewedUser } from "../../api/tokens.js";
import type { KubeObjectClient } from "./object-client.js";

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/**
 * TokenReview and SubjectAccessReview through the service's own client (its kubeconfig's credentials, which need
 * `create` on both: the `system:auth-delegator` ClusterRole grants it), as kube-rbac-proxy delegates to the API server.
 */
export class KubeAccessReviews implements AccessReviews {
  constructor(
    private readonly client: KubeObjectClient,
    readonly namespace: string,
  ) {}

  async reviewToken(token: string, signal: AbortSignal): Promise<{ user: ReviewedUser } | { error: string }> {
    const review = await this.client.post({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } }, signal);
    const status = (review["status"] ?? {}) as TokenReviewStatus;
    const username = status.user?.username;
    if (!status.authenticated || !username) return { error: status.error || "the token is not authenticated" };
    const { uid, groups, extra } = status.user ?? {};
    return { user: { username, ...(uid ? { uid } : {}), ...(groups ? { groups } : {}), ...(extra ? { extra } : {}) } };
  }

  async reviewAccess(
    user: ReviewedUser,
    attributes: { group: string; resource: string; verb: string },
    signal: AbortSignal,
  ): Promise<{ allowed: boolean; reason: string }> {
    const review = await this.client.post(
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, resourceAttributes: { ...attributes, namespace: this.namespace } },
      },
      signal,
    );
    const status = (review["status"] ?? {}) as SubjectAccessReviewStatus;
    return { allowed: status.allowed === true && status.denied !== true, reason: status.reason || status.evaluationError || "" };
  }
}
