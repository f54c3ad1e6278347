/**
 * Reads the bundled front end (dist/web/app.js and app.css, written by scripts/build-web.mjs) for
 * the HTML export; the server can serve the same files. Found beside the built CLI (dist/cli → dist/web)
 * or, when running from the sources (tests), in dist/web of the repository.
 */
import { readFileSync } from "node:fs";
import { AgentStreamError } from "../errors.ts";
import type { WebAssets } from "../views/html/page.ts";

const CANDIDATES = ["../web/", "../../dist/web/"];

let cached: WebAssets | undefined;

/** The script and style of the page; an `io` error saying to build when they are missing. */
export function loadWebAssets(): WebAssets {
  if (cached !== undefined) return cached;
  for (const candidate of CANDIDATES) {
    const dir = new URL(candidate, import.meta.url);
    try {
      const script = readFileSync(new URL("app.js", dir), "utf8");
      const css = readFileSync(new URL("app.css", dir), "utf8");
      cached = { script, css };
      return cached;
    } catch {
      // Not here: try the next place.
    }
  }
  throw new AgentStreamError("io", "the web page's script and style (dist/web/app.js, app.css) are missing: run npm run build");
}
