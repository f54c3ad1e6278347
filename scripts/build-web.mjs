// Bundles the page's script and style for the browser (after tsc): src/views/web/main.ts →
// dist/web/app.js and src/views/web/app.css → dist/web/app.css, minified, no source maps (the
// HTML export inlines both, so every byte counts). Called by `npm run build`.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

// The script is inlined in the HTML export: "<!--" or "<script" inside it would change how the HTML
// parser finds its end. They only occur in string and regex literals, where \x3C is the same "<".
const script = join(out, "app.js");
const code = readFileSync(script, "utf8");
if (/\\<(?:!--|script)/i.test(code)) throw new Error('build-web: an escaped "<" before <!-- or <script: the rewrite would change it');
writeFileSync(script, code.replace(/<(?=!--|script)/gi, "\\x3C"));
