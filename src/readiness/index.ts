export * from "./checks.js";
