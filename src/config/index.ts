export * from "./options.js";
export * from "./package.js";
