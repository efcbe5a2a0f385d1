export * from "./options.js";
