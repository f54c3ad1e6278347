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

/**
 * The commands whose runs are short by design (`usage` and `sessions` over the caches: a few hundred ms, a third
 * of it starting up) are one file each, not the ten chunks they share with the others: Node 20 loads an ES
 * module in about a millisecond besides compiling it (one file: 16 ms, the chunks: 25 ms). What they share with
 * `bin` is then in both (stateless code; errors are recognised by a brand, not by class: errors.ts).
 */
const SELF_CONTAINED = ["usage", "sessions"];
const selfContainedCommands = {
  name: "self-contained-commands",
  setup(esbuild) {
    const filter = new RegExp(`^\\./commands/(${SELF_CONTAINED.join("|")})\\.ts$`);
    esbuild.onResolve({ filter }, (args) => ({ path: `./${filter.exec(args.path)?.[1]}.js`, external: true }));
  },
};

const common = {
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // The NATS client is loaded only by the commands that use it (docs/fleet.md) and stays a package;
  // ajv is bundled (its CommonJS files were ~40 ms of every command's start).
  external: ["@nats-io/*"],
  legalComments: "inline",
  logLevel: "warning",
};

await build({
  ...common,
  // `bin`: the program; `run`: its run(argv, io) for the benchmark (bench/method.mjs), sharing the chunks.
  entryPoints: { bin: join(root, "src/cli/bin.ts"), run: join(root, "src/cli/run.ts") },
  chunkNames: "[name]-[hash]",
  splitting: true,
  plugins: [moduleUrlOfCompiledCopy, selfContainedCommands],
});
await build({
  ...common,
  entryPoints: Object.fromEntries(SELF_CONTAINED.map((name) => [name, join(root, `src/cli/commands/${name}.ts`)])),
  plugins: [moduleUrlOfCompiledCopy],
});

writeFileSync(join(dist, "cli/bin.js"), '#!/usr/bin/env node\n// The CLI is bundled (scripts/build-cli.mjs).\nimport "./bundle/bin.js";\n');
// tsc's source map of the file the stub replaced would map nothing.
rmSync(join(dist, "cli/bin.js.map"), { force: true });
