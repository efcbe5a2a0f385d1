// Lint: type-aware TypeScript rules and import-x/no-cycle. The layering (which folder of src/ may import which, what
// src/core and the pure cores may not import, cycles through type-only imports) is scripts/check-imports.ts's.
import tseslint from "typescript-eslint";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

export default tseslint.config(
  {
    ignores: [
      "src/gen/**",
      "clients/ts/src/gen/**",
      "clients/ts/dist/**",
      "clients/go/**",
      "clients/python/**",
      "node_modules/**",
      "dist/**",
      "eslint.config.js",
      "bin/**",
    ],
  },
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
    files: ["src/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      // import-x parses each dependency itself: without a parser for .ts files it reads none and finds no cycle.
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` })],
    },
    rules: { "import-x/no-cycle": "error" },
  },
);
