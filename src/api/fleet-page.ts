/**
 * The fleet's live page on `syncworker fleet`'s admin listener: `/` and its two assets, the namespace's rollouts to
 * pick from, and one Server-Sent Events stream per page of the picked rollout. The stream says what FleetWatch
 * says (src/api/fleet-views.ts makes both): the rollout's view, each member's view, `synced`, then each change, one
 * `fleet` event per FleetWatchResponse in its JSON form. A page that lost its stream opens it again and gets the
 * whole picture anew (views, not changes: nothing is counted twice). Reading needs FleetWatch's access (the reader
 * role, or watch on releaserollouts with --authn kube), from a bearer token: the admin listener has no TLS.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { FleetWatchResponse } from "@syncworker/client/gen/syncworker/v1/fleet";
import { FLEET_ACCESS, type AccessControlOptions } from "./access.js";
import { followRollout, rolloutView, type FleetSource } from "./fleet-views.js";
import { allowed, assetRoutes, openEventStream, pathOf, sendError, sendJson } from "./page-http.js";

/** The page's files (src/page/assets, built by scripts/gen-page.ts); the stylesheet is the update page's. */
const FILES: Readonly<Record<string, string>> = { "/": "fleet.html", "/page/fleet.js": "fleet.js", "/page/app.css": "app.css" };

export interface FleetPageDeps {
  readonly source: FleetSource;
  /** The hub's namespace (`--namespace`): the rollouts the page lists and follows. */
  readonly namespace: string;
  readonly access: AccessControlOptions;
  readonly log: { warn(msg: string): void };
}

/** One line of `GET /api/v1/fleet/rollouts`: enough to pick a rollout. */
export interface RolloutListItem {
  readonly name: string;
  readonly phase: string;
  readonly release: string;
  readonly stageSummary: string;
}

/** The fleet page's routes; answers and returns true for a request it serves, false for any other. */
export function fleetPageRoutes(deps: FleetPageDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const assets = assetRoutes(FILES, deps.log);
  return (req, res) => {
    if (assets(req, res)) return true;
    if (req.method !== "GET") return false;
    const path = pathOf(req);
    if (path === "/api/v1/fleet/rollouts") {
      void list(deps, req, res);
      return true;
    }
    if (path === "/api/v1/fleet/stream") {
      void stream(deps, req, res);
      return true;
    }
    return false;
  };
}

async function list(deps: FleetPageDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if ((await allowed(deps.access, FLEET_ACCESS.fleetWatch, req, res)) === undefined) return;
  const items: RolloutListItem[] = deps.source
    .rollouts(deps.namespace)
    .map(rolloutView)
    .map((v) => ({ name: v.name, phase: v.phase, release: v.releaseVersion, stageSummary: v.stageSummary }))
    .sort((a, b) => a.name.localeCompare(b.name));
  sendJson(res, 200, items);
}

async function stream(deps: FleetPageDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if ((await allowed(deps.access, FLEET_ACCESS.fleetWatch, req, res)) === undefined) return;
  const name = new URL(req.url ?? "/", "http://page").searchParams.get("rollout") ?? "";
  if (!name) return sendError(res, 400, "name the rollout to follow: ?rollout=NAME", "INVALID_ARGUMENT");
  if (!deps.source.rollout(deps.namespace, name)) return sendError(res, 404, `ReleaseRollout ${deps.namespace}/${name} not found`, "NOT_FOUND");
  const events = openEventStream(res);
  const following = followRollout(
    deps.source,
    { namespace: deps.namespace, name, cursors: new Map(), fullStatus: false },
    {
      write: (event) => events.send("fleet", JSON.stringify(FleetWatchResponse.toJSON(event))),
      // Until the socket takes what was written, changes wait and are coalesced: a slow page gets the latest views.
      blocked: () => res.writableNeedDrain || res.destroyed,
    },
    // The rollout was deleted: the page sees the stream end, and a 404 when it opens it again.
    () => res.end(),
  );
  res.on("drain", () => following.drained());
  res.on("close", () => following.stop());
}
