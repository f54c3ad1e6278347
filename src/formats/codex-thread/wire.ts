/** The Codex-style thread/turn/item records (dev-agent stream-json design; docs/formats/codex-thread.md). */

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
