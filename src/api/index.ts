export { ApiServer, type ApiDeps, type WorkerPort } from "./server.js";
export { InvalidArgumentError, toServiceError } from "./errors.js";
