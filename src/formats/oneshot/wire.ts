/** oneshot's unified activity packets (docs/formats/oneshot.md). */
import type { JsonObject, JsonValue } from "../../model/events.ts";

/** The spec's six packet types, our heartbeat, and `event` for what the six cannot say. */
export type OneshotType = "preamble" | "thought" | "message" | "tool_use" | "tool_output" | "completion" | "heartbeat" | "event";

/** One oneshot activity packet. */
export interface OneshotPacket {
  /** Unix time in seconds (float). */
  timestamp: number;
  /** The same instant in integer milliseconds. */
  ts_ms: number;
  executor: string;
  oneshot_id: string;
  type: OneshotType;
  data: JsonValue;
  is_heartbeat: boolean;
  /** Ours, with `--include-raw`: the source record the packet's event came from. */
  raw?: JsonValue;
}

/** The `data` fields the reader understands (every one optional, read with a runtime check). */
export interface OneshotData {
  session_id?: string;
  /** heartbeat. */
  idle_ms?: number;
  /** preamble, thought. */
  text?: string;
  /** thought, message. */
  channel?: string;
  content_type?: string;
  language?: string;
  redacted?: boolean;
  signature?: string;
  /** message; tool_output's output. */
  role?: string;
  content?: string;
  /** tool_use, tool_output. */
  tool?: string;
  id?: string;
  name?: string;
  kind?: string;
  command?: string;
  server?: string;
  reason?: string;
  exit_code?: number;
  is_error?: boolean;
  duration_ms?: number;
  /** Ours: the event a packet stands for, where the spec's type says less (Aider's commits and edits). */
  event?: JsonObject;
  /** completion. */
  status?: string;
  interrupted?: boolean;
  error?: string;
  result?: string;
  details?: JsonObject;
  stats?: OneshotStats;
}

/** `completion.data.stats`. */
interface OneshotStats {
  usage?: JsonObject;
  cost_usd?: number;
  duration_ms?: number;
  turns?: number;
}
