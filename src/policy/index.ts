export * from "./capabilities.js";
export * from "./overrides.js";
export * from "./preconditions.js";
export * from "./implicit.js";
export { capabilitiesSpecShape, componentOverrideShape, preconditionResultShape } from "./shapes.js";
export { compareSemVer, parseSemVer, type SemVer } from "./semver.js";
export { nextOpening, parseMaintenanceWindow, windowState, type MaintenanceWindow, type WindowState } from "./maintenance-windows.js";
