export * from "./capabilities.js";
export * from "./overrides.js";
