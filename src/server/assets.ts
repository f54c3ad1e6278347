/**
 * The browser app built by `npm run build` (scripts/build-web.mjs → dist/web/). Read once, kept in
 * memory: two small files. Looked for beside the compiled server (dist/server → dist/web) and, when
 * the server runs from source (tests), in the repository's dist/web.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AgentStreamError } from "../errors.ts";

/** The app's script and style sheet, as text. */
export interface WebAssets {
  readonly script: string;
  readonly style: string;
}

const CANDIDATES = ["../web/", "../../dist/web/"];

/** Loads dist/web/app.js and app.css; a missing build is a caller mistake that says what to run. */
export function loadWebAssets(): WebAssets {
  for (const folder of CANDIDATES) {
    const dir = new URL(folder, import.meta.url);
    const script = fileURLToPath(new URL("app.js", dir));
    const style = fileURLToPath(new URL("app.css", dir));
    if (existsSync(script) && existsSync(style)) return { script: readFileSync(script, "utf8"), style: readFileSync(style, "utf8") };
  }
  throw new AgentStreamError("io", "the web app is not built (dist/web/app.js is missing): run npm run build");
}
