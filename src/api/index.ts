export { ApiServer, logGrpcTo, type ApiDeps, type ServicePort } from "./server.js";
export { AccessError, InvalidArgumentError, toServiceError } from "./errors.js";
export { OPEN_ACCESS, RPC_ACCESS, type AccessControlOptions } from "./access.js";
export { pageRoutes, type PageDeps } from "./page.js";
export { serverCredentials, type TlsFiles } from "./tls.js";
export {
  CachedTokenAuthority,
  KubeTokenAuthority,
  StaticTokens,
  RBAC_GROUP,
  RBAC_RESOURCE,
  type AccessReviews,
  type Role,
  type TokenAuthority,
} from "./tokens.js";
export { CallObserver, NO_API_METRICS, type ApiMetrics, type CallScope } from "./observe.js";
