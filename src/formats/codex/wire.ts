/**
 * The `codex exec --json` records (0.44+) as we write them: codex-rs exec_events.rs and
 * @openai/codex-sdk. The Codex agent dialect reads them with its own wire types (src/dialects/codex.ts
 * today; src/agents/codex/wire.ts after the agents restructure, which these should then re-export).
 */
import type { JsonValue } from "../../model/events.ts";

/** `turn.completed.usage`: the thread's running total (input includes cached; output includes reasoning). */
export type CodexUsage = {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
};

type CodexItemType =
  | "agent_message"
  | "reasoning"
  | "plan"
  | "command_execution"
  | "file_change"
  | "mcp_tool_call"
  | "web_search"
  | "todo_list"
  | "error";
export type ToolItemType = Extract<CodexItemType, "command_execution" | "file_change" | "mcp_tool_call" | "web_search">;

/** One thread item: `{id, type, ...fields}`. */
export type CodexItem = { id: string; type: CodexItemType } & Record<string, JsonValue>;

/** One `codex exec --json` record as we write it. */
export type CodexRecord = Record<string, JsonValue>;
