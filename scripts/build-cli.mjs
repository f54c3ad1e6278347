// Bundles the CLI (after tsc): src/cli/bin.ts → dist/cli/bundle/, one file per command loaded on
// demand (ESM splitting), so `agentstream --help` loads little and `agentstream convert` loads a few
// files instead of ~180 modules (and ajv's CommonJS files). dist/cli/bin.js, the package's `bin`, is
// then a one-line stub importing the bundle. The library (dist/index.js, agentstream/run, ...) stays
// tsc's output. Called by `npm run build`; docs/benchmarks.md says what it saves.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const outdir = join(dist, "cli/bundle");
rmSync(outdir, { recursive: true, force: true });

/**
 * A module that finds a file beside itself (`new URL("./scan-worker.js", import.meta.url)`: the usage
 * and log workers, the web app's files) is bundled into dist/cli/bundle/, where those files are not:
 * its `import.meta.url` is replaced by the URL of its tsc-compiled copy, whose neighbours are there.
 */
const moduleUrlOfCompiledCopy = {
  name: "module-url-of-compiled-copy",
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const compiled = join(dist, relative(join(root, "src"), args.path)).replace(/\.ts$/, ".js");
      const fromBundle = relative(outdir, compiled).split("\\").join("/");
      return {
        contents: source.replaceAll("import.meta.url", `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`),
        loader: "ts",
      };
    });
  },
};

await build({
  // `bin`: the program; `run`: its run(argv, io) for the benchmark (bench/method.mjs), sharing the chunks.
  entryPoints: { bin: join(root, "src/cli/bin.ts"), run: join(root, "src/cli/run.ts") },
  outdir,
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // The NATS client is loaded only by the commands that use it (docs/fleet.md) and stays a package;
  // ajv is bundled (its CommonJS files were ~40 ms of every command's start).
  external: ["@nats-io/*"],
  legalComments: "inline",
  logLevel: "warning",
  plugins: [moduleUrlOfCompiledCopy],
});

writeFileSync(join(dist, "cli/bin.js"), '#!/usr/bin/env node\n// The CLI is bundled (scripts/build-cli.mjs).\nimport "./bundle/bin.js";\n');
// tsc's source map of the file the stub replaced would map nothing.
rmSync(join(dist, "cli/bin.js.map"), { force: true });
