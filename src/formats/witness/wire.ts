/** Witness Forge NDJSON records (NDJSON_SPEC.md v1.0; docs/formats/witness.md). */
import type { JsonObject, JsonValue } from "../../model/events.ts";

/** The Witness record types this writer emits: the spec's three plus its reserved four. */
export type WitnessType = "analysis" | "final" | "metric" | "tool_call" | "tool_result" | "error" | "debug";

/** One Witness event: `type` and `content` are required; `brain` and `meta` optional. */
export interface WitnessRecord {
  type: string;
  content: string;
  brain?: string | null;
  meta?: JsonObject | null;
}

/**
 * The `meta` fields the reader understands (what our writer puts there, and the spec's): every one optional, read
 * with a runtime check. A metric's meta is its values, a debug record's the whole event.
 */
export interface WitnessMeta {
  session_id?: string;
  /** Messages. */
  redacted?: boolean;
  content_type?: string;
  language?: string;
  signature?: string;
  /** Tool calls and results. */
  tool_call_id?: string;
  name?: string;
  kind?: string;
  input?: JsonValue;
  server?: string;
  description?: string;
  exit_code?: number;
  is_error?: boolean;
  duration_ms?: number;
  result?: JsonValue;
  /** Usage metrics and errors. */
  scope?: string;
  cost_usd?: number;
  model?: string;
  code?: string;
  fatal?: boolean;
  turn_id?: string;
  /** Debug records: our own event, replayed. */
  event?: JsonObject;
}
