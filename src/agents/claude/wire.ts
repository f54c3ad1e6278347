/**
 * The wire vocabulary Claude Code's stream-json output and its session transcripts share (both
 * carry Anthropic Messages API content blocks): tool kinds, usage, tool_result text, structured
 * patches, todo statuses. One copy, so the two dialects name and count things the same way.
 */
import type { JsonValue, PlanItem, ToolKind, Usage } from "../../model/events.ts";
import { arr } from "../../dialect/json.ts";
import { asWire, field, fieldArr, fieldNum, fieldObj, fieldStr } from "../../dialect/wire.ts";

/** An Anthropic Messages API content block, as assistant and user messages carry them. */
export interface ContentBlock {
  type: "text" | "thinking" | "redacted_thinking" | "tool_use" | "server_tool_use" | "mcp_tool_use" | "tool_result" | "image" | string;
  text?: string;
  thinking?: string;
  signature?: string;
  /** `redacted_thinking` payload. */
  data?: string;
  id?: string;
  name?: string;
  input?: JsonValue;
  server_name?: string;
  tool_use_id?: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
  /** `image` / `document` blocks. */
  source?: { media_type?: string };
  /** `tool_reference` blocks in a tool result. */
  tool_name?: string;
  /** `web_search_result` blocks. */
  title?: string;
  url?: string;
}

/** Tool name → kind, for Claude Code's tools and the Claude-compatible agents' (Amp, Qwen). */
const TOOL_KINDS = new Map<string, ToolKind>([
  ["Bash", "command"],
  ["BashOutput", "command"],
  ["KillShell", "command"],
  ["KillBash", "command"],
  ["PowerShell", "command"],
  ["run_shell_command", "command"],
  ["Read", "file_read"],
  ["NotebookRead", "file_read"],
  ["read_file", "file_read"],
  ["read_many_files", "file_read"],
  ["Write", "file_write"],
  ["write_file", "file_write"],
  ["create_file", "file_write"],
  ["Edit", "file_edit"],
  ["MultiEdit", "file_edit"],
  ["NotebookEdit", "file_edit"],
  ["edit", "file_edit"],
  ["replace", "file_edit"],
  ["edit_file", "file_edit"],
  ["undo_edit", "file_edit"],
  ["Grep", "search"],
  ["Glob", "search"],
  ["LS", "search"],
  ["glob", "search"],
  ["grep_search", "search"],
  ["search_file_content", "search"],
  ["list_directory", "search"],
  ["finder", "search"],
  ["codebase_search_agent", "search"],
  ["WebSearch", "web_search"],
  ["web_search", "web_search"],
  ["google_web_search", "web_search"],
  ["WebFetch", "web_fetch"],
  ["web_fetch", "web_fetch"],
  ["read_web_page", "web_fetch"],
  ["Task", "subagent"],
  ["Agent", "subagent"],
  ["task", "subagent"],
  ["oracle", "subagent"],
  ["librarian", "subagent"],
  ["TodoWrite", "todo"],
  ["TodoRead", "todo"],
  ["todo_write", "todo"],
  ["todo_read", "todo"],
  ["TaskCreate", "todo"],
  ["TaskUpdate", "todo"],
  ["TaskList", "todo"],
  ["TaskGet", "todo"],
  ["task_list", "todo"],
]);

/** Server-side tools of the Anthropic API (`server_tool_use` blocks). */
const SERVER_TOOL_KINDS = new Map<string, ToolKind>([
  ["web_search", "web_search"],
  ["web_fetch", "web_fetch"],
  ["code_execution", "command"],
  ["bash_code_execution", "command"],
]);

/** Tool kind and MCP server of a tool-use block (`mcp__<server>__<tool>` names, `mcp_tool_use` blocks). */
export function classifyTool(name: string, blockType = "tool_use", serverName?: string): { kind: ToolKind; server?: string } {
  if (blockType === "mcp_tool_use") return serverName === undefined ? { kind: "mcp" } : { kind: "mcp", server: serverName };
  if (blockType === "server_tool_use") return { kind: SERVER_TOOL_KINDS.get(name) ?? "other" };
  if (name.startsWith("mcp__")) {
    const rest = name.slice(5);
    const cut = rest.indexOf("__");
    return { kind: "mcp", server: cut > 0 ? rest.slice(0, cut) : rest };
  }
  return { kind: TOOL_KINDS.get(name) ?? "other" };
}

/** A token count the schema accepts (a non-negative integer), else null. */
export function count(value: JsonValue | undefined): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}

/** Anthropic usage (stream-json and session transcripts alike): `input_tokens` excludes the cache reads and writes. */
export interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  output_tokens_details?: { thinking_tokens?: number };
}

/** Anthropic `usage` as the model's Usage (cache read and write are separate from input, as Claude reports them). */
export function anthropicUsage(value: JsonValue | undefined): Usage {
  const u = asWire<WireUsage>(value);
  return {
    inputTokens: count(field(u, "input_tokens")),
    outputTokens: count(field(u, "output_tokens")),
    cacheReadTokens: count(field(u, "cache_read_input_tokens")),
    cacheWriteTokens: count(field(u, "cache_creation_input_tokens")),
    reasoningTokens: count(field(fieldObj(u, "output_tokens_details"), "thinking_tokens")),
  };
}

/** One hunk of Claude Code's `structuredPatch`. */
interface PatchHunk {
  oldStart?: number;
  oldLines?: number;
  newStart?: number;
  newLines?: number;
  lines?: string[];
}

/** Text of a tool_result `content`: a string, or text blocks joined by newlines (images, documents, references, search results as short markers). */
export function contentText(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  const items = arr(value);
  if (items === undefined) return JSON.stringify(value);
  const parts: string[] = [];
  for (const item of items) {
    const block = asWire<ContentBlock>(item);
    const type = fieldStr(block, "type");
    const text = typeof item === "string" ? item : fieldStr(block, "text");
    if (text !== undefined) parts.push(text);
    else if (type === "image" || type === "document") parts.push(`[${type}]`);
    else if (type === "tool_reference") parts.push(`[tool_reference: ${fieldStr(block, "tool_name") ?? ""}]`);
    else if (type === "web_search_result") parts.push(`${fieldStr(block, "title") ?? ""} <${fieldStr(block, "url") ?? ""}>`);
    else parts.push(JSON.stringify(item));
  }
  return parts.join("\n");
}

/** Claude Code's Edit/Write `structuredPatch` hunks as a unified diff; undefined when no hunk has lines. */
export function unifiedDiff(path: string, hunks: JsonValue[] | undefined): string | undefined {
  if (hunks === undefined) return undefined;
  const lines: string[] = [];
  for (const entry of hunks) {
    const hunk = asWire<PatchHunk>(entry);
    const body = fieldArr(hunk, "lines");
    if (body === undefined) continue;
    const range = (start: "oldStart" | "newStart", length: "oldLines" | "newLines") =>
      `${fieldNum(hunk, start) ?? 0},${fieldNum(hunk, length) ?? 0}`;
    lines.push(`@@ -${range("oldStart", "oldLines")} +${range("newStart", "newLines")} @@`);
    for (const line of body) if (typeof line === "string") lines.push(line);
  }
  return lines.length === 0 ? undefined : [`--- ${path}`, `+++ ${path}`, ...lines].join("\n");
}

/** A todo status as the model names it. */
export function planStatus(status: string | undefined): PlanItem["status"] {
  if (status === "completed" || status === "done") return "completed";
  if (status === "in_progress" || status === "in-progress" || status === "active") return "in_progress";
  return "pending";
}
