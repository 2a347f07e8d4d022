// Type-aware lint: the promise rules catch the bugs that freeze an editor.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const noVscode = { name: "vscode", message: "vscode is imported only under extension/." };
// The CUDA addon is loaded only by the runner process (native/runner/runner.ts, through the loader
// native/runner/addon.ts); everything else talks to it through RunnerClient.
const addonMessage =
  "the CUDA addon is loaded only by the runner process (native/runner/runner.ts through native/runner/addon.ts); use RunnerClient";
const noAddonNode = { regex: "\\.node$", message: addonMessage };
/** native/addon(.d.ts) and the loader native/runner/addon, from anywhere or relative within native/. */
const noAddon = { regex: "(^|/)native/(runner/)?addon$|^\\.\\.?/addon$", message: addonMessage };
const noAddonLoader = { regex: "(^|/)native/runner/addon$|^\\./addon$", message: addonMessage };

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "native/build/**",
      ".tools/**",
      ".device/**",
      "examples/**",
      "test/fixtures/corpus/**",
      "test-results/**",
      "**/*.mjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": "off",
      // Files small and named for what they hold; functions that read as one step. Data tables say so
      // with an eslint-disable comment and its reason.
      "max-lines": ["error", { max: 450 }],
      "max-lines-per-function": ["error", { max: 100, IIFEs: true }],
    },
  },
  // Boundaries: vscode only in extension/, the addon only in the runner.
  {
    files: ["server/**/*.ts", "native/**/*.ts", "webview/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: [noVscode], patterns: [noAddonNode, noAddon] }],
    },
  },
  {
    files: ["extension/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [noAddonNode, noAddon] }] },
  },
  // The runner process's own modules may use the addon's types (native/addon.d.ts); only runner.ts
  // loads it, through the loader.
  {
    files: ["native/runner/*.ts"],
    ignores: ["native/runner/runnerClient.ts", "native/runner/runnerProcess.ts", "native/runner/protocol.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: [noVscode], patterns: [noAddonNode, noAddonLoader] }],
    },
  },
  {
    files: ["native/runner/runner.ts"],
    rules: { "no-restricted-imports": ["error", { paths: [noVscode], patterns: [noAddonNode] }] },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "it", "describe", "suite"] },
          ],
        },
      ],
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
    },
  },
);
