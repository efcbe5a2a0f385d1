/**
 * The vocabulary every folder shares. It imports nothing of the project (the lint enforces it), so any
 * folder may import it without a cycle.
 */
export { brandError } from "./brand.js";
export { UpdateError, type TaskLike, type UpdateEffect, type UpdateErrorInit } from "./update-error.js";
