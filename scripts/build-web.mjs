// Bundles the page's script and style for the browser (after tsc): src/views/web/main.ts →
// dist/web/app.js and src/views/web/app.css → dist/web/app.css, minified, no source maps (the
// HTML export inlines both, so every byte counts). Called by `npm run build`.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/web");
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(root, "src/views/web/main.ts")],
  outfile: join(out, "app.js"),
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  platform: "browser",
  legalComments: "none",
  logLevel: "warning",
});
await build({
  entryPoints: [join(root, "src/views/web/app.css")],
  outfile: join(out, "app.css"),
  bundle: true,
  minify: true,
  logLevel: "warning",
});
