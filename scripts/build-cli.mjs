// Bundles the CLI (after tsc) into dist/cli/bundle/: the program (src/cli/bin.ts → bin.cjs), the list of
// commands (run.js) and one ES module per command (command-<name>.js, imported when that command runs), instead of
// ~180 modules (and ajv's CommonJS files). dist/cli/bin.cjs, the package's `bin`, and dist/cli/bin.js (for
// `node dist/cli/bin.js`) are one-line stubs loading the program. The library (dist/index.js, agentstream/run,
// ...) stays tsc's output. Called by `npm run build`.
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
 * its `import.meta.url` is replaced by the URL of its tsc-compiled copy, whose neighbours are there,
 * made from `bundleUrl`, the expression of the bundle's own URL.
 */
const moduleUrlOfCompiledCopy = (bundleUrl) => ({
  name: "module-url-of-compiled-copy",
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const compiled = join(dist, relative(join(root, "src"), args.path)).replace(/\.ts$/, ".js");
      const fromBundle = relative(outdir, compiled).split("\\").join("/");
      return {
        contents: source.replaceAll("import.meta.url", `new URL(${JSON.stringify(fromBundle)}, ${bundleUrl}).href`),
        loader: "ts",
      };
    });
  },
});

const common = {
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // The NATS client and the OpenTelemetry packages are loaded only by the commands that use them (docs/fleet.md,
  // docs/otel.md) and stay packages (their CommonJS files `require` Node's modules, which an ES module bundle
  // cannot); ajv is bundled (loading its many CommonJS files was a large part of every command's start).
  // better-sqlite3 is a native module (its .node file is loaded from its package folder): never bundled.
  // The MCP SDK and zod are bundled, into the `mcp` command's chunk only: pure JS, and one file starts faster than the
  // SDK's many modules (the time to answer `initialize` was about a third shorter, on a shared machine).
  external: ["@nats-io/*", "@opentelemetry/*", "better-sqlite3"],
  legalComments: "inline",
  logLevel: "warning",
};

/**
 * The commands: each is one file of its own, `command-<name>.js`, holding everything it runs (what it imports
 * lazily too), which `run.js` imports when that command runs. One file loads faster than the dozens of shared chunks
 * code splitting makes (Node's module loader pays per module: resolving, reading, linking), at the price of the code
 * commands share being in each of their files. Nothing is shared between the files at run time: a value that must be
 * recognised across them carries a brand (`AgentStreamError.is`, `LosslessInteger.is`), never `instanceof`.
 */
const runSource = readFileSync(join(root, "src/cli/run.ts"), "utf8");
const commandNames = [...runSource.matchAll(/import\("\.\/commands\/([a-z-]+)\.ts"\)/g)].map((match) => match[1]);
await build({
  ...common,
  entryPoints: Object.fromEntries(commandNames.map((name) => [`command-${name}`, join(root, `src/cli/commands/${name}.ts`)])),
  plugins: [moduleUrlOfCompiledCopy("import.meta.url")],
});
/** In `run.js`, a command's module is its file. */
const commandOfBundle = {
  name: "command-of-bundle",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/commands\/[a-z-]+\.ts$/ }, (args) =>
      args.importer.endsWith(join("src", "cli", "run.ts"))
        ? { path: `./command-${args.path.slice("./commands/".length, -".ts".length)}.js`, external: true }
        : undefined,
    );
  },
};
// `run`: the list of commands, which the program imports.
await build({
  ...common,
  entryPoints: { run: join(root, "src/cli/run.ts") },
  plugins: [commandOfBundle, moduleUrlOfCompiledCopy("import.meta.url")],
});
/**
 * The program itself is CommonJS: Node starts an ES module entry later (its module loader), and every run would pay
 * that. It imports the ES module `run.js`, the list of commands.
 */
const runOfBundle = {
  name: "run-of-bundle",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/run\.ts$/ }, () => ({ path: "./run.js", external: true }));
  },
};
await build({
  ...common,
  entryPoints: { bin: join(root, "src/cli/bin.ts") },
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  plugins: [runOfBundle, moduleUrlOfCompiledCopy('require("node:url").pathToFileURL(__filename)')],
});
// The package's `bin`, and the same program for `node dist/cli/bin.js` (the tests, the docs' examples).
writeFileSync(
  join(dist, "cli/bin.cjs"),
  '#!/usr/bin/env node\n// The CLI is bundled (scripts/build-cli.mjs).\nrequire("./bundle/bin.cjs");\n',
  { mode: 0o755 },
);
writeFileSync(
  join(dist, "cli/bin.js"),
  '#!/usr/bin/env node\n// The CLI is bundled (scripts/build-cli.mjs); the package runs bin.cjs.\nimport "./bundle/bin.cjs";\n',
);
// tsc's source map of the file the stub replaced would map nothing.
rmSync(join(dist, "cli/bin.js.map"), { force: true });
