/**
 * The contract of a stage between the decoders and the envelope (stream repair, secret redaction,
 * delta joining): drafts in, drafts out, synchronously, possibly holding some back until a later
 * draft or the end.
 */
import type { AgentEventDraft } from "../model/events.ts";

/** One stage of the event pipeline. */
export interface EventStage {
  push(draft: AgentEventDraft, emit: (draft: AgentEventDraft) => void): void;
  /**
   * Everything of the chunk the reader was fed has been pushed: emit what was held only to be joined
   * with more of the same chunk (the next chunk may come much later). What is held for another reason
   * (a tail that may grow into a secret, a first delta that may be a snapshot) stays held.
   */
  settle?(emit: (draft: AgentEventDraft) => void): void;
  /** The input ended: emit whatever is still held. */
  end(emit: (draft: AgentEventDraft) => void): void;
}
