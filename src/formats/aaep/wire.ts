/** AAEP v1 records (Ramseyxlil/aaep; docs/formats/aaep.md). The full schemas are in ./schema.ts. */
import type { JsonObject } from "../../model/events.ts";

/** The envelope every AAEP event carries. */
interface AaepEnvelope {
  "@context": string | string[];
  type: string;
  /** `evt_…` */
  event_id: string;
  /** `sess_…` */
  session_id: string;
  timestamp: string;
  producer: { agent_id: string; agent_version?: string; model?: string };
  urgency?: "background" | "normal" | "critical";
  extensions?: Record<string, JsonObject>;
}
/** `aaep:agent.output.streaming`. */
interface AaepChunk extends AaepEnvelope {
  chunk: string;
  /** Code points before this chunk in its output. */
  position: number;
  complete: boolean;
  output_id?: string;
  content_type?: string;
  language?: string;
}
/** The records this decoder reads (documentation; the wire is read through the `_json` readers). */
export type AaepRecord = AaepEnvelope | AaepChunk;

/**
 * What the reader reads of any AAEP event: the envelope and the fields of the event types it maps (every one
 * optional, read with a runtime check). The schemas in ./schema.ts say which type carries which.
 */
export interface AaepEventFields {
  type?: string;
  session_id?: string;
  timestamp?: string;
  producer?: { agent_id?: string; agent_version?: string; model?: string };
  extensions?: { agentstream?: AaepExtension };
  /** agent.output.streaming (AaepChunk). */
  output_id?: string;
  chunk?: string;
  complete?: boolean;
  content_type?: string;
  language?: string;
  /** Lifecycle events. */
  summary_normal?: string;
  tools_available?: string[];
  request_text?: string;
  requested_by?: string;
  duration_ms?: number;
  error_category?: string;
  error_code?: string;
  cancelled_by?: string;
  /** Tool events. */
  tool_call_id?: string;
  tool?: string;
  status?: string;
  error_message?: string;
  /** Events kept as notices. */
  action?: string;
  question?: string;
  reason?: string;
  from_state?: string;
  to_state?: string;
  progress?: { description?: string };
}

/** `extensions.agentstream`: what our writer adds so that its own reader gets our events back. */
export interface AaepExtension {
  /** Written only to satisfy AAEP (a session start, an invocation, a terminal event): not the agent's. */
  synthesized?: boolean;
  /** Our session id (null: the writer's input named none). */
  session_id?: string | null;
  message_id?: string;
  channel?: string;
  /** Our whole event, for what AAEP has no event for. */
  event?: JsonObject;
}
