/** oneshot's unified activity packets (docs/formats/oneshot.md). */
import type { JsonValue } from "../../model/events.ts";

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
}
