/**
 * The HTML export's text: one self-contained page (the app's script and style inlined, the session
 * embedded as JSON), under a Content-Security-Policy that allows exactly that script and that style
 * by hash and nothing else (`default-src 'none'`): no other script, no request, no frame, no form.
 * Browser-safe: the caller reads the assets (src/server/assets.ts) and writes the file.
 */
import { stringifyRecord } from "../../framing/stringify.ts";
import type { ExportedSession } from "../shared/exported-session.ts";

/** The bundled front end (dist/web/app.js, dist/web/app.css). */
export interface WebAssets {
  readonly script: string;
  readonly css: string;
}

/**
 * The page, in pieces to write in order (the events' JSON is one piece per event, so a large session
 * is never one giant string). Async only because hashing uses Web Crypto.
 */
export async function exportPage(session: ExportedSession, assets: WebAssets, title: string): Promise<string[]> {
  if (/<\/script|<!--|<script/i.test(assets.script) || /<\/style/i.test(assets.css))
    throw new Error("the web assets contain a sequence that would end their element early: rebuild them (npm run build)");
  const [scriptHash, styleHash] = await Promise.all([sha256(assets.script), sha256(assets.css)]);
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${scriptHash}'`,
    `style-src 'sha256-${styleHash}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const head = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${assets.css}</style>`,
    "</head>",
    "<body>",
    '<main id="agentstream" data-mode="export"><noscript>This page shows an agent session with JavaScript; the session is in the JSON below the page.</noscript></main>',
    '<script type="application/json" id="agentstream-session">',
  ].join("\n");
  const { events, ...rest } = session;
  const parts = [`${head}\n`, `{"header":${embedJson(rest.header)},"truncation":${embedJson(rest.truncation)},"events":[`];
  for (let i = 0; i < events.length; i++) parts.push(`${i === 0 ? "" : ",\n"}${embedJson(events[i])}`);
  parts.push(`]}\n</script>\n<script>${assets.script}</script>\n</body>\n</html>\n`);
  return parts;
}

/**
 * JSON that can sit inside a `<script>` element: `<`, `>`, `&` and the line separators U+2028 and
 * U+2029 written as \u escapes (inside JSON strings, the only place they can occur, that is the same
 * text), so no `</script>` or `<!--` in agent text can end or change the element.
 */
export function embedJson(value: unknown): string {
  return stringifyRecord(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Text for an HTML text node or a quoted attribute. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Base64 SHA-256 of the UTF-8 text, as a CSP hash source wants it. */
async function sha256(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let binary = "";
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
