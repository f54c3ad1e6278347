/** Witness Forge NDJSON records (NDJSON_SPEC.md v1.0; docs/formats/witness.md). */
import type { JsonObject } from "../../model/events.ts";

/** The Witness record types this writer emits: the spec's three plus its reserved four. */
export type WitnessType = "analysis" | "final" | "metric" | "tool_call" | "tool_result" | "error" | "debug";

/** One Witness event: `type` and `content` are required; `brain` and `meta` optional. */
export interface WitnessRecord {
  type: string;
  content: string;
  brain?: string | null;
  meta?: JsonObject | null;
}
