// Lint: type-aware TypeScript rules, and the architecture rules: the pure cores stay free of I/O edges, src/core
// imports nothing of the project, and no import cycles.
import tseslint from "typescript-eslint";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

const PURE = ["payload", "graph", "policy", "readiness", "worker", "status"];

export default tseslint.config(
  { ignores: ["src/gen/**", "clients/ts/src/gen/**", "clients/ts/dist/**", "clients/go/**", "clients/python/**", "node_modules/**", "dist/**", "eslint.config.js", "bin/**"] },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": [
        "error",
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["test", "it", "describe", "suite", "before", "after"] }] },
      ],
      // Interface implementations are async by contract even when one needs no await.
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { varsIgnorePattern: "^_", argsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
    },
  },
  {
    files: PURE.map((dir) => `src/${dir}/**/*.ts`),
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@grpc/*", "@grpc/grpc-js"], message: "Pure cores must not depend on gRPC; only src/api may." },
            { group: ["@kubernetes/client-node"], message: "Pure cores must not depend on Kubernetes; only src/cluster/kube may." },
            { group: ["**/api", "**/api/**", "**/cluster", "**/cluster/**"], message: "Pure cores must not import the edges (src/api, src/cluster)." },
          ],
        },
      ],
    },
  },
  {
    files: ["src/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      // import-x parses each dependency itself: without a parser for .ts files it reads none and finds no cycle.
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` })],
    },
    rules: { "import-x/no-cycle": "error" },
  },
  {
    // The shared vocabulary every folder may import: it may import only Node built-ins, or it would pull the
    // project into every folder and close cycles.
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(\\.\\./|@syncworker/|@grpc/|@kubernetes/)", message: "src/core imports nothing of the project: only node: built-ins." }] },
      ],
    },
  },
);
