export { ApiServer, type ApiDeps, type ServicePort } from "./server.js";
export { InvalidArgumentError, toServiceError } from "./errors.js";
export { CallObserver, NO_API_METRICS, type ApiMetrics, type CallScope } from "./observe.js";
