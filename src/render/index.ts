export { createTerminalRenderer, formatMetric, keyArgument, type RenderMode, type RendererOptions, type TerminalRenderer, type Verbosity } from "./create-terminal-renderer.ts";
export { createSanitizer, sanitizeForTerminal, stripSgr, type SanitizeOptions, type TerminalSanitizer } from "./_sanitize.ts";
