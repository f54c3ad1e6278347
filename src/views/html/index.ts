/** The HTML export: the embedded session (cut to the caps) and the page around it. */
export { createSessionEmbedder, DEFAULT_CAPS, type EmbedCaps, type SessionEmbedder } from "./embed.ts";
export { embedJson, escapeHtml, exportPage, type WebAssets } from "./page.ts";
