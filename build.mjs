// One bundler for every entry: the extension, the language server, the CLI, the GPU runner, each webview.
import * as esbuild from "esbuild";
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";

const watch = process.argv.includes("--watch");
const production = !process.argv.includes("--dev");
const dist = "dist";

// ESM-only dependencies read import.meta.url; in a CJS bundle it must point at the bundle itself.
const importMetaShim = {
  define: { "import.meta.url": "__importMetaUrl" },
  banner: { js: 'const __importMetaUrl = require("url").pathToFileURL(__filename).href;' },
};

const nodeCommon = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: production ? false : "linked",
  minify: production,
  logLevel: "warning",
  ...importMetaShim,
};

// The extension's entry is kept small: activation requires it (VS Code counts that), so what is not
// needed at activation is in extension/features/<name>.ts, built as dist/<name>.js and loaded on first
// use (extension/lazy.ts). Beside dist/runner.js, which their code finds next to itself.
const features = existsSync("extension/features")
  ? readdirSync("extension/features").filter((f) => f.endsWith(".ts"))
  : [];
const featureEntries = features.map((f) => ({
  entryPoints: [join("extension/features", f)],
  outfile: `${dist}/${basename(f, ".ts")}.js`,
  external: ["vscode"],
}));

const nodeEntries = [
  {
    entryPoints: ["extension/extension.ts"],
    outfile: `${dist}/extension.js`,
    external: ["vscode"],
    metafile: true,
  },
  ...featureEntries,
  { entryPoints: ["server/lsp/main.ts"], outfile: `${dist}/server.js` },
  {
    entryPoints: ["server/cli/main.ts"],
    outfile: `${dist}/cli.js`,
    banner: { js: `#!/usr/bin/env node\n${importMetaShim.banner.js}` },
  },
  { entryPoints: ["native/runner/runner.ts"], outfile: `${dist}/runner.js` },
  // The Nsight Systems export reader's own process (server/process/isolated.ts starts it), beside
  // the bundles that start it (dist/cli.js, dist/profiling.js).
  { entryPoints: ["server/profile/nsysReader.ts"], outfile: `${dist}/nsysReader.js` },
].filter((e) => existsSync(e.entryPoints[0]));

// Each webview/<panel>/main.ts becomes dist/webview/<panel>.js, run in the browser sandbox.
const webviewEntries = existsSync("webview")
  ? readdirSync("webview", { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join("webview", d.name, "main.ts")))
      .map((d) => ({
        entryPoints: [join("webview", d.name, "main.ts")],
        outfile: `${dist}/webview/${d.name}.js`,
        bundle: true,
        platform: "browser",
        target: "es2022",
        format: "iife",
        minify: production,
        sourcemap: production ? false : "inline",
        logLevel: "warning",
      }))
  : [];

// What must never be in the entry again: each is loaded on first use, from its feature bundle.
const NOT_IN_ENTRY = [
  "node_modules/vscode-languageclient/",
  "node_modules/execa/",
  "server/process/launch.ts",
  "server/process/isolated.ts",
  "server/profile/",
  "native/runner/",
];

/** Fails the build when the entry bundle holds code of NOT_IN_ENTRY (an import that should be lazy). */
function checkEntry(result) {
  const output = Object.values(result.metafile?.outputs ?? {})[0];
  const found = Object.entries(output?.inputs ?? {})
    .filter(([path, input]) => input.bytesInOutput > 0 && NOT_IN_ENTRY.some((p) => path.includes(p)))
    .map(([path]) => path);
  if (found.length === 0) return;
  console.error(
    `build: dist/extension.js must load these on first use, not at activation:\n  ${found.join("\n  ")}`,
  );
  process.exitCode = 1;
}

function copyAssets() {
  mkdirSync(`${dist}/wasm`, { recursive: true });
  cpSync("node_modules/web-tree-sitter/web-tree-sitter.wasm", `${dist}/wasm/web-tree-sitter.wasm`);
  cpSync("node_modules/tree-sitter-cuda/tree-sitter-cuda.wasm", `${dist}/wasm/tree-sitter-cuda.wasm`);
  cpSync("node_modules/sql.js/dist/sql-wasm.wasm", `${dist}/wasm/sql-wasm.wasm`); // Nsight Systems exports
  if (existsSync("server/rules/docs")) cpSync("server/rules/docs", `${dist}/rules`, { recursive: true });
  // The PyTorch baseline's sidecar, found beside the bundles (server/bench/torch/torchBaseline.ts).
  mkdirSync(`${dist}/torch`, { recursive: true });
  cpSync("server/bench/torch/sidecar.py", `${dist}/torch/sidecar.py`);
  // Each panel's stylesheet, webview/<panel>/<panel>.css, goes beside its script: dist/webview/<panel>.css.
  for (const panel of existsSync("webview") ? readdirSync("webview") : []) {
    const css = join("webview", panel, `${panel}.css`);
    if (!existsSync(css)) continue;
    mkdirSync(`${dist}/webview`, { recursive: true });
    cpSync(css, `${dist}/webview/${panel}.css`);
  }
  const addon = "native/build/Release/cuda_addon.node";
  if (existsSync(addon)) {
    mkdirSync(`${dist}/native`, { recursive: true });
    cpSync(addon, `${dist}/native/cuda_addon.node`);
  }
}

const configs = [...nodeEntries.map((e) => ({ ...nodeCommon, ...e })), ...webviewEntries];
if (watch) {
  for (const c of configs) await (await esbuild.context(c)).watch();
  copyAssets();
} else {
  const results = await Promise.all(configs.map((c) => esbuild.build(c)));
  checkEntry(results[configs.findIndex((c) => c.outfile === `${dist}/extension.js`)]);
  copyAssets();
}
