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
