/**
 * Delta joining, for views: the `message.delta` drafts of one message that follow each other in one
 * chunk of input become one draft, their texts joined (likewise a tool call's `tool.input.delta`s).
 * A view shows text, not records, and everything downstream (redaction, the envelope, the view's
 * layout and its writes) costs per event: a chunk of a Claude stream holds dozens of 15-character
 * deltas of one message, which then cost what one does. Nothing waits for more input than the
 * chunk it came in (`settle`), so a live view shows text as soon as it did before.
 *
 * Not for writers or anything that counts or numbers records: the joined stream has fewer events
 * (and `seq` numbers) than the records. It runs after repair, so every repair rule still sees each
 * delta as it came.
 */
import type { AgentEventDraft, EventSource } from "../../model/events.ts";
import type { EventStage } from "../stage.ts";

type Emit = (draft: AgentEventDraft) => void;
type MessageDelta = Extract<AgentEventDraft, { type: "message.delta" }>;
type ToolInputDelta = Extract<AgentEventDraft, { type: "tool.input.delta" }>;
type Joinable = MessageDelta | ToolInputDelta;

export interface JoinStageOptions {
  /**
   * The source the envelope would give a draft pushed now (the record being read): a joined draft
   * keeps its first record's, not the one read when it is let go.
   */
  currentSource?: () => EventSource | undefined;
}

/**
 * Creates the joining stage.
 * @example
 * const stage = createJoinStage();
 * stage.push(delta("Hel"), emit); stage.push(delta("lo"), emit); // nothing yet
 * stage.settle(emit); // one message.delta with text "Hello"
 */
export function createJoinStage(options: JoinStageOptions = {}): EventStage {
  /** The first draft of the run being joined, or undefined. */
  let held: Joinable | undefined;
  /** The texts of the run, the first draft's included, and their length. */
  let parts: string[] = [];
  let length = 0;
  /** Where the run's first draft came from. */
  let source: EventSource | undefined;

  function release(emit: Emit): void {
    if (held === undefined) return;
    const first = held;
    const text = parts.length === 1 ? first.text : parts.join("");
    held = undefined;
    parts = [];
    if (source === undefined) emit(text === first.text ? first : { ...first, text });
    else emit({ ...first, text, source });
  }

  return {
    push(draft, emit) {
      if (held !== undefined && continues(held, length, draft)) {
        parts.push(draft.text);
        length += draft.text.length;
        return;
      }
      release(emit);
      if (draft.type !== "message.delta" && draft.type !== "tool.input.delta") {
        emit(draft);
        return;
      }
      held = draft;
      parts = [draft.text];
      length = draft.text.length;
      source = draft.source === undefined ? options.currentSource?.() : undefined;
    },
    settle: release,
    end: release,
  };
}

/**
 * Whether `next` continues the run that `first` opened (`length` characters so far): the same message
 * (role and kind too) with no gap or overlap, or the same tool call, in the same session. The joined
 * draft keeps the first one's other fields (its `time`, when the input gave one per record).
 */
function continues(first: Joinable, length: number, next: AgentEventDraft): next is Joinable {
  if (next.type !== first.type || next.sessionId !== first.sessionId) return false;
  if (first.type === "tool.input.delta") return (next as ToolInputDelta).toolCallId === first.toolCallId;
  const delta = next as MessageDelta;
  return (
    delta.messageId === first.messageId &&
    delta.role === first.role &&
    delta.kind === first.kind &&
    delta.position === first.position + length
  );
}
