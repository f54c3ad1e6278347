/** The Codex-style thread/turn/item records (dev-agent stream-json design; docs/formats/codex-thread.md). */
import type { JsonObject, JsonValue } from "../../model/events.ts";

/** The envelope of every line. */
interface CodexThreadEnvelope {
  type: string;
  /** RFC 3339 UTC. */
  timestamp: string;
  /** Strictly increasing within a run. */
  sequence: number;
  thread_id: string;
}
interface ThreadStarted extends CodexThreadEnvelope {
  type: "thread.started";
  task: string | null;
  project_name: string | null;
  parent_branch_id: string | null;
  headless: boolean | null;
}
interface ItemStarted extends CodexThreadEnvelope {
  type: "item.started";
  item_id: string;
  /** `tool_call`, `publish`, `branch_poll`, ... (and, from our writer, message kinds). */
  kind: string;
  name: string;
  args: unknown;
}
interface ItemCompleted extends CodexThreadEnvelope {
  type: "item.completed";
  item_id: string;
  status: "success" | "error" | "incomplete";
  duration_ms: number | null;
  branch_id?: string;
  summary: string;
}
/** The records this decoder reads (documentation; the wire is read through the `_json` readers). */
export type CodexThreadRecord = ThreadStarted | ItemStarted | ItemCompleted | CodexThreadEnvelope;

/**
 * What the reader reads of any line: the envelope, the design's fields and the ones our writer adds (every one
 * optional, read with a runtime check).
 */
export interface CodexThreadFields {
  type?: string;
  timestamp?: string;
  thread_id?: string;
  /** Ours: the session the line belongs to. */
  session_id?: string;
  /** Ours: a line written only because the design requires it, not the agent's. */
  synthesized?: boolean;
  /** thread.started. */
  task?: string | null;
  project_name?: string | null;
  parent_branch_id?: string | null;
  headless?: boolean | null;
  cwd?: string;
  details?: JsonObject;
  tools?: string[];
  agent?: string;
  agent_version?: string;
  model?: string;
  parent_session_id?: string;
  parent_tool_call_id?: string;
  permission_mode?: string;
  /** item.started / item.completed. */
  item_id?: string;
  kind?: string;
  name?: string;
  args?: JsonValue;
  tool_kind?: string;
  server?: string;
  description?: string;
  redacted?: boolean;
  text?: string;
  summary?: string;
  signature?: string;
  content_type?: string;
  language?: string;
  channel?: string;
  branch_id?: string;
  output?: string;
  result?: JsonValue;
  exit_code?: number;
  status?: string;
  duration_ms?: number | null;
  /** thread.completed. */
  final_report?: CodexThreadReport;
  /** turn.*, error, log. */
  turn_id?: string;
  error?: string;
  usage?: JsonObject;
  cost_usd?: number;
  scope?: string;
  code?: string;
  fatal?: boolean;
  level?: string;
  message?: string;
  /** Ours: our whole event, for what the design has no line for. */
  event?: JsonObject;
  /** publish.*. */
  workspace_dir?: string;
  publish_report?: JsonValue;
  /** assistant.message (an earlier draft of the design). */
  preview?: string;
}

/** `thread.completed.final_report`. */
interface CodexThreadReport {
  usage?: JsonObject;
  error?: string;
  final_text?: string;
  cost_usd?: number;
  duration_ms?: number;
  turns?: number;
  details?: JsonObject;
}
