/** What the views for people offer the public API (docs/api.md): the terminal renderer and the escape-sequence sanitizer. */
export {
  createTerminalRenderer,
  type RendererEndOptions,
  type RendererOptions,
  type TerminalRenderer,
} from "./terminal/create-terminal-renderer.ts";
export type { RenderMode, Verbosity } from "./shared/types.ts";
export { createSanitizer, sanitizeForTerminal, type SanitizeOptions, type TerminalSanitizer } from "./shared/sanitize.ts";
