/**
 * The `codex exec --json` records (0.44+) as we write them (codex-rs exec_events.rs and @openai/codex-sdk). The wire
 * types are the Codex family's, in src/agents/codex/wire.ts, which the Codex dialect reads; these are what we write of them.
 */
import type { CodexUsage as WireUsage, ItemType } from "../../agents/codex/wire.ts";
import type { JsonValue } from "../../model/events.ts";

/** `turn.completed.usage` as we write it: the thread's running total, every figure present (no `total_tokens`). */
export type CodexUsage = Required<Omit<WireUsage, "total_tokens">>;

/** The item types we write (not `collab_tool_call`: our subagents are not Codex collaborations). */
type CodexItemType = Exclude<ItemType, "collab_tool_call">;
export type ToolItemType = Extract<CodexItemType, "command_execution" | "file_change" | "mcp_tool_call" | "web_search">;

/** One thread item: `{id, type, ...fields}`. */
export type CodexItem = { id: string; type: CodexItemType } & Record<string, JsonValue>;

/** One `codex exec --json` record as we write it. */
export type CodexRecord = Record<string, JsonValue>;
