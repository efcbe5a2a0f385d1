export * from "./flags.js";
export * from "./load-options.js";
export * from "./options.js";
export * from "./package.js";
export * from "./address.js";
export * from "./value-error.js";
export * from "./listen-error.js";
export * from "./tuning.js";
export { formatByteSize, formatDuration, parseByteSize, parseDuration, positiveNumber } from "./units.js";
