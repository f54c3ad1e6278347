export { createTerminalRenderer, formatMetric, keyArgument, type RenderMode, type RendererOptions, type TerminalRenderer } from "./create-terminal-renderer.ts";
export { sanitizeForTerminal, stripSgr, type SanitizeOptions } from "./_sanitize.ts";
