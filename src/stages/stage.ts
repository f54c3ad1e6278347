/**
 * The contract of a stage between the decoders and the envelope (stream repair, secret redaction):
 * drafts in, drafts out, synchronously, possibly holding some back until a later draft or the end.
 */
import type { AgentEventDraft } from "../model/events.ts";

/** One stage of the event pipeline. */
export interface EventStage {
  push(draft: AgentEventDraft, emit: (draft: AgentEventDraft) => void): void;
  /** The input ended: emit whatever is still held. */
  end(emit: (draft: AgentEventDraft) => void): void;
}
