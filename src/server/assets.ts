/**
 * The browser app built by `npm run build` (scripts/build-web.mjs → dist/web/), read once and kept in
 * memory (two small files) for the live page and the HTML export alike. Looked for beside the
 * compiled code (dist/server → dist/web) and, when running from source (tests), in the repository's dist/web.
 */
import { readFileSync } from "node:fs";
import { AgentStreamError } from "../errors.ts";
import type { WebAssets } from "../views/html/page.ts";

export type { WebAssets };

const CANDIDATES = ["../web/", "../../dist/web/"];

let cached: WebAssets | undefined;

/** Loads dist/web/app.js and app.css; a missing build is an `io` error that says what to run. */
export function loadWebAssets(): WebAssets {
  if (cached !== undefined) return cached;
  for (const folder of CANDIDATES) {
    const dir = new URL(folder, import.meta.url);
    try {
      cached = { script: readFileSync(new URL("app.js", dir), "utf8"), css: readFileSync(new URL("app.css", dir), "utf8") };
      return cached;
    } catch {
      // Not here: try the next place.
    }
  }
  throw new AgentStreamError("io", "the web app is not built (dist/web/app.js, app.css are missing): run npm run build");
}
