// Bundles the CLI (after tsc) into dist/cli/bundle/: the program (src/cli/bin.ts → bin.cjs), the list of
// commands (run.cjs) and one file per command (command-<name>.cjs, required when that command runs), instead of
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
 * The commands: each is one file of its own, `command-<name>.cjs`, holding everything it runs (what it imports
 * lazily too), which the list of commands requires when that command runs. One file loads faster than the dozens of
 * shared chunks code splitting makes (Node's module loader pays per module: resolving, reading, linking), at the price
 * of the code commands share being in each of their files. Nothing is shared between the files at run time: a value
 * that must be recognised across them carries a brand (`AgentStreamError.is`, `LosslessInteger.is`), never
 * `instanceof`. Every file is CommonJS, as the program is: a command that loads no ES module package never starts
 * Node's ES module loader.
 */
const runSource = readFileSync(join(root, "src/cli/run.ts"), "utf8");
const commandNames = [...runSource.matchAll(/import\("\.\/commands\/([a-z-]+)\.ts"\)/g)].map((match) => match[1]);
const commonJs = {
  ...common,
  format: "cjs",
  outExtension: { ".js": ".cjs" },
  plugins: [moduleUrlOfCompiledCopy('require("node:url").pathToFileURL(__filename)')],
};
await build({
  ...commonJs,
  entryPoints: Object.fromEntries(commandNames.map((name) => [`command-${name}`, join(root, `src/cli/commands/${name}.ts`)])),
});
/**
 * The program's `import("./run.ts")` is the list of commands' file, and the list's `import("./commands/<name>.ts")` the
 * command's; both are required (`supported`: esbuild writes a lazy `require` for such an `import()`).
 */
const filesOfBundle = {
  name: "files-of-bundle",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/run\.ts$/ }, () => ({ path: "./run.cjs", external: true }));
    esbuild.onResolve({ filter: /^\.\/commands\/[a-z-]+\.ts$/ }, (args) =>
      args.importer.endsWith(join("src", "cli", "run.ts"))
        ? { path: `./command-${args.path.slice("./commands/".length, -".ts".length)}.cjs`, external: true }
        : undefined,
    );
  },
};
// The program (bin.cjs: an ES module entry would start Node's module loader at every run) and the list of commands.
await build({
  ...commonJs,
  entryPoints: { bin: join(root, "src/cli/bin.ts"), run: join(root, "src/cli/run.ts") },
  supported: { "dynamic-import": false },
  plugins: [filesOfBundle, ...commonJs.plugins],
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
