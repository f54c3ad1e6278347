/**
 * Stream repair: one stage between the dialects and everything downstream that makes every
 * dialect keep the delta contract (append-only text, each character once), and reports every
 * change it makes as a `repair` event so a user can audit it. `--no-repair` leaves it out.
 *
 * The rules re-implement, from its description, ralph-workflow's StreamingSession contract
 * (../shared/seeds/ralph-workflow-json-parser-streaming-contract.md and
 * ../shared/docs/seed-origins-and-ralph-contract.md); docs/repair.md gives each rule and why.
 */
import type { AgentEventDraft, MessageKind, MessageRole } from "../../model/events.ts";
import type { EventStage } from "../stage.ts";

/** Thresholds of the snapshot and resend rules. */
export interface RepairOptions {
  /** Accumulated text at least this long that a delta starts with is a snapshot, whatever the ratio. @defaultValue 30 */
  minOverlapChars?: number;
  /** Below `minOverlapChars`, an overlap this long or longer counts when it is ≥ `minOverlapRatio` of the delta and ends at a safe boundary. @defaultValue 8 */
  shortOverlapChars?: number;
  /** @defaultValue 0.5 */
  minOverlapRatio?: number;
  /** A delta repeated right after itself is a resend glitch only when at least this long (so "ha", "ha" and "." "." "." stay). @defaultValue 8 */
  minResendChars?: number;
  /** Deltas longer than this are counted as large (a snapshot-as-delta symptom). @defaultValue 200 */
  largeDeltaChars?: number;
}

/** Large message deltas, in one stream, that make the pattern the warning is about (ralph: "3+ occurrences"). */
const LARGE_DELTA_PATTERN = 3;

/** What the stage tells its reader beyond the events. */
export interface RepairHooks {
  /**
   * Called once per stream, when the `LARGE_DELTA_PATTERN`th message delta longer than
   * `largeDeltaChars` arrives: the agent likely sends snapshots as deltas (the reader reports a
   * `large-deltas` warning).
   */
  onLargeDeltas?(deltas: number, largeDeltaChars: number): void;
}

/** Counters for the health report. */
export interface RepairStats {
  repairs: number;
  largeDeltas: number;
  protocolViolations: number;
}

type Channel = {
  /** What went downstream so far (the deltas' concatenation). */
  emitted: string;
  /** The text as the stage believes it is, when it differs from `emitted` (a snapshot rewrote earlier text). */
  trueText: string | undefined;
  /** The last delta as it arrived. */
  lastRaw: string;
  /** A short first delta held back until the next one says whether the stream is snapshots. */
  held: string | undefined;
  mode: "unknown" | "delta" | "snapshot";
  deltas: number;
  completed: boolean;
  role: MessageRole;
  kind: MessageKind;
  sessionId: string | undefined;
  /** Raw concatenation of every delta that arrived (what a dialect closing the message at end of input would send). */
  rawConcat: string;
};

type Emit = (draft: AgentEventDraft) => void;

/**
 * Removes a channel and lets go of its texts. A Map keeps its previous table, entries and all, after it grows or
 * compacts (an iterator may still be walking it); once that table is in the old generation, whatever its entries
 * reach lives until a full collection. A stream of messages remembered in a Map is so a stream of texts promoted
 * and dying in the old generation, most of a long stream's peak memory, unless each channel is emptied on removal.
 */
function forget(channels: Map<string, Channel>, id: string): void {
  const channel = channels.get(id);
  if (channel === undefined) return;
  channels.delete(id);
  channel.emitted = "";
  channel.trueText = undefined;
  channel.lastRaw = "";
  channel.held = undefined;
  channel.rawConcat = "";
}

const SAFE_BOUNDARY = /[\s.,;:!?)\]}'"`\-–—…]/u;
/** Events that do not show text: a held first delta may wait past them (Claude interleaves thinking_tokens metrics). */
const QUIET_TYPES = new Set<AgentEventDraft["type"]>(["metric", "usage", "rate_limit", "heartbeat", "retry", "notice", "repair"]);
/** Completed messages remembered (for late deltas and repeated completions); older ones are forgotten so memory stays flat. */
const REMEMBERED_MESSAGES = 512;

/** Creates the repair stage; pass it in `ReadOptions.stages`. */
export function createRepairStage(options: RepairOptions = {}, hooks: RepairHooks = {}): EventStage & { readonly stats: RepairStats } {
  return new RepairStage(options, hooks);
}

/** What the repair stage remembers (open messages, tool inputs, held first deltas) and its rules. */
class RepairStage implements EventStage {
  readonly minOverlap: number;
  readonly shortOverlap: number;
  readonly minRatio: number;
  readonly minResend: number;
  readonly largeDelta: number;
  readonly stats: RepairStats = { repairs: 0, largeDeltas: 0, protocolViolations: 0 };
  readonly messages = new Map<string, Channel>();
  readonly toolInputs = new Map<string, Channel>();
  /** Recently streamed assistant messages, for matching a complete message that arrives under another id. */
  readonly recentStreamed: string[] = [];
  readonly heldTemplates = new Map<string, AgentEventDraft>();
  readonly hooks: RepairHooks;
  /** Message deltas over `largeDelta` (tool input, often whole at once, is left out of the pattern). */
  largeTextDeltas = 0;

  constructor(options: RepairOptions, hooks: RepairHooks) {
    this.hooks = hooks;
    this.minOverlap = options.minOverlapChars ?? 30;
    this.shortOverlap = options.shortOverlapChars ?? 8;
    this.minRatio = options.minOverlapRatio ?? 0.5;
    this.minResend = options.minResendChars ?? 8;
    this.largeDelta = options.largeDeltaChars ?? 200;
  }

  push(draft: AgentEventDraft, emit: Emit): void {
    switch (draft.type) {
      case "message.delta":
        this.onMessageDelta(draft, emit);
        return;
      case "message.completed":
        this.onMessageCompleted(draft, emit);
        return;
      case "message.started":
        this.onMessageStarted(draft, emit);
        return;
      case "tool.input.delta":
        this.onToolInputDelta(draft, emit);
        return;
      case "tool.completed":
        forget(this.toolInputs, draft.toolCallId);
        this.flushAllHeld(emit);
        emit(draft);
        return;
      default:
        // Anything visible ends a held first delta's wait: show it before the event that follows it.
        if (!QUIET_TYPES.has(draft.type)) this.flushAllHeld(emit);
        emit(draft);
    }
  }

  end(emit: Emit): void {
    this.flushAllHeld(emit);
  }

  private onMessageStarted(draft: Extract<AgentEventDraft, { type: "message.started" }>, emit: Emit): void {
    this.flushAllHeld(emit);
    const known = this.messages.get(draft.messageId);
    if (known !== undefined && !known.completed) {
      // GLM behind Claude Code repeats message_start mid-message: keep the message going.
      this.stats.protocolViolations++;
      this.repair(emit, "repeated-start", `message "${draft.messageId}" started again while open; the repeat was dropped`, 0, {
        messageId: draft.messageId,
        sessionId: draft.sessionId,
      });
      return;
    }
    if (known !== undefined) forget(this.messages, draft.messageId); // a reused id after completion starts afresh
    this.channelFor(this.messages, draft.messageId, draft.role, draft.kind, draft.sessionId);
    emit(draft);
  }

  private repair(
    emit: Emit,
    kind: string,
    message: string,
    removedChars: number,
    ids: { messageId?: string; toolCallId?: string; sessionId?: string | undefined },
  ): void {
    this.stats.repairs++;
    const draft: AgentEventDraft = { type: "repair", kind, removedChars, message };
    const withIds = {
      ...draft,
      ...(ids.messageId !== undefined ? { messageId: ids.messageId } : {}),
      ...(ids.toolCallId !== undefined ? { toolCallId: ids.toolCallId } : {}),
    };
    emit(ids.sessionId !== undefined ? { ...withIds, sessionId: ids.sessionId } : withIds);
  }

  private channelFor(map: Map<string, Channel>, id: string, role: MessageRole, kind: MessageKind, sessionId: string | undefined): Channel {
    let channel = map.get(id);
    if (channel === undefined) {
      channel = {
        emitted: "",
        trueText: undefined,
        lastRaw: "",
        held: undefined,
        mode: "unknown",
        deltas: 0,
        completed: false,
        role,
        kind,
        sessionId,
        rawConcat: "",
      };
      map.set(id, channel);
    }
    return channel;
  }

  /**
   * Decides what part of `delta` is new for `channel`. Returns the text to send on (possibly
   * empty) and reports what it removed. The rules, in order (docs/repair.md explains each):
   * resend glitch, snapshot of the text so far, snapshot of the previous delta (recovery when an
   * earlier snapshot slipped through), and, in a stream known to send snapshots, stale or revised
   * snapshots versus true deltas mixed in.
   */
  private resolve(
    channel: Channel,
    delta: string,
    emit: Emit,
    ids: { messageId?: string; toolCallId?: string; sessionId?: string | undefined },
  ): string {
    const previousRaw = channel.lastRaw;
    channel.lastRaw = delta;
    channel.rawConcat += delta;
    channel.deltas++;
    const current = channel.trueText ?? channel.emitted;

    // 1. Resend glitch: the same (non-trivial) delta twice in a row; A, B, A, B is kept.
    if (delta === previousRaw && delta.length >= this.minResend && hasWordChar(delta) && channel.mode !== "snapshot") {
      this.repair(
        emit,
        "duplicate-delta",
        `the same ${delta.length}-character delta arrived twice in a row; the repeat was dropped`,
        delta.length,
        ids,
      );
      return "";
    }
    // 2. Snapshot of everything so far: the delta starts with the whole text.
    if (current.length > 0 && delta.length >= current.length && delta.startsWith(current)) {
      const overlap = current.length;
      const strong =
        channel.mode === "snapshot" ||
        (hasWordChar(current) &&
          (overlap >= this.minOverlap ||
            (overlap >= this.shortOverlap && (overlap / delta.length >= this.minRatio || isSafeBoundary(delta, overlap)))));
      if (strong) return this.snapshotSuffix(channel, delta, overlap, emit, ids);
    }
    // 3. Snapshot of the previous delta: an earlier snapshot was too short to recognise, so the
    //    text so far already repeats; recover from here on (the completed message is corrected).
    if (
      channel.mode !== "snapshot" &&
      previousRaw.length >= this.shortOverlap &&
      delta.length > previousRaw.length &&
      delta.startsWith(previousRaw) &&
      hasWordChar(previousRaw) &&
      current.endsWith(previousRaw)
    ) {
      channel.mode = "snapshot";
      channel.trueText = delta;
      const fresh = delta.slice(previousRaw.length);
      this.repair(
        emit,
        "snapshot-as-delta",
        `a snapshot was sent as a delta (it repeats the previous delta); the ${previousRaw.length} repeated characters were removed`,
        previousRaw.length,
        ids,
      );
      return fresh;
    }
    if (channel.mode === "snapshot") {
      if (delta === current || (current.startsWith(delta) && delta.length >= this.shortOverlap)) {
        this.repair(emit, "snapshot-as-delta", "a snapshot with nothing new was dropped", delta.length, ids);
        return "";
      }
      const common = commonPrefixLength(delta, current);
      if (common >= this.shortOverlap && common * 2 >= delta.length) {
        // The agent revised earlier text. Append-only output cannot unsay it; the completed
        // message carries the revision.
        this.repair(
          emit,
          "snapshot-discontinuity",
          "a snapshot does not extend the text shown so far; the revision is kept for the completed message",
          0,
          ids,
        );
        channel.trueText = delta;
        return "";
      }
      // A true delta in a stream that also sends snapshots: append it.
      if (channel.trueText !== undefined) channel.trueText += delta;
      return delta;
    }
    channel.mode = "delta";
    if (channel.trueText !== undefined) channel.trueText += delta;
    return delta;
  }

  private snapshotSuffix(
    channel: Channel,
    delta: string,
    overlap: number,
    emit: Emit,
    ids: { messageId?: string; toolCallId?: string; sessionId?: string | undefined },
  ): string {
    channel.mode = "snapshot";
    const fresh = delta.slice(overlap);
    this.repair(
      emit,
      "snapshot-as-delta",
      fresh === ""
        ? "a snapshot repeated the text so far with nothing new; dropped"
        : `a snapshot was sent as a delta; the ${overlap} characters already shown were removed`,
      overlap,
      ids,
    );
    if (channel.trueText !== undefined) channel.trueText = delta;
    return fresh;
  }

  private sendMessageDelta(channel: Channel, messageId: string, text: string, draft: AgentEventDraft, emit: Emit): void {
    if (text === "") return;
    const delta = draft as Extract<AgentEventDraft, { type: "message.delta" }>;
    const position = channel.emitted.length;
    // The common case (a true delta at the right position) passes the draft on as it is: no copy per delta.
    const out: AgentEventDraft =
      delta.text === text && delta.position === position && delta.messageId === messageId ? delta : { ...delta, text, position };
    channel.emitted += text;
    emit(out);
  }

  private flushHeld(channel: Channel, messageId: string, template: AgentEventDraft, emit: Emit): void {
    if (channel.held === undefined) return;
    const held = channel.held;
    channel.held = undefined;
    this.sendMessageDelta(channel, messageId, held, { ...template, text: held } as AgentEventDraft, emit);
  }

  private flushAllHeld(emit: Emit, except?: string): void {
    for (const [messageId, template] of this.heldTemplates) {
      if (messageId === except) continue;
      const channel = this.messages.get(messageId);
      if (channel !== undefined) this.flushHeld(channel, messageId, template, emit);
      this.heldTemplates.delete(messageId);
    }
  }

  private onMessageDelta(draft: Extract<AgentEventDraft, { type: "message.delta" }>, emit: Emit): void {
    const known = this.messages.get(draft.messageId);
    if (known === undefined) {
      // Delta for a message that never started: start it (with the delta's role and kind) and say so.
      this.stats.protocolViolations++;
      this.repair(emit, "orphan-delta", `message.delta for "${draft.messageId}" before message.started; a start was inserted`, 0, {
        messageId: draft.messageId,
        sessionId: draft.sessionId,
      });
      const started: AgentEventDraft = { type: "message.started", messageId: draft.messageId, role: draft.role, kind: draft.kind };
      emit(draft.sessionId !== undefined ? { ...started, sessionId: draft.sessionId } : started);
    }
    const channel = known ?? this.channelFor(this.messages, draft.messageId, draft.role, draft.kind, draft.sessionId);
    const ids = { messageId: draft.messageId, sessionId: draft.sessionId };
    if (this.heldTemplates.size > 0 && !(this.heldTemplates.size === 1 && this.heldTemplates.has(draft.messageId)))
      this.flushAllHeld(emit, draft.messageId);
    if (channel.completed) {
      this.stats.protocolViolations++;
      this.repair(
        emit,
        "delta-after-completion",
        `text for "${draft.messageId}" after its message.completed was dropped (the complete message already has it)`,
        draft.text.length,
        ids,
      );
      return;
    }
    if (draft.text === "") return;
    if (draft.text.length > this.largeDelta) this.countLargeTextDelta();
    // While a message has fewer than `minOverlap` characters, its deltas are held back until
    // the next one tells whether this stream sends snapshots: "Hel" then "Hello" is a snapshot
    // stream, and showing "Hel" first would duplicate it. Past `minOverlap` characters a snapshot
    // is recognised on its own (rule 2). Anything visible releases held text at once, so the
    // cost is a few deltas of delay at the start of a message, never reordering.
    if (channel.mode === "unknown" && channel.emitted === "") {
      const held = channel.held ?? "";
      if (draft.text === channel.lastRaw && draft.text.length >= this.minResend && hasWordChar(draft.text)) {
        channel.rawConcat += draft.text;
        this.repair(
          emit,
          "duplicate-delta",
          `the same ${draft.text.length}-character delta arrived twice in a row; the repeat was dropped`,
          draft.text.length,
          ids,
        );
        return;
      }
      channel.lastRaw = draft.text;
      channel.rawConcat += draft.text;
      channel.deltas++;
      if (held !== "" && draft.text.length > held.length && draft.text.startsWith(held) && hasWordChar(held)) {
        channel.held = undefined;
        this.heldTemplates.delete(draft.messageId);
        channel.mode = "snapshot";
        this.repair(
          emit,
          "snapshot-as-delta",
          `a snapshot was sent as a delta; the ${held.length} characters before it were not repeated`,
          held.length,
          ids,
        );
        this.sendMessageDelta(channel, draft.messageId, draft.text, draft, emit);
        return;
      }
      const joined = held + draft.text;
      if (joined.length < this.minOverlap) {
        channel.held = joined;
        this.heldTemplates.set(draft.messageId, draft);
        return;
      }
      channel.held = undefined;
      this.heldTemplates.delete(draft.messageId);
      channel.mode = "delta";
      this.sendMessageDelta(channel, draft.messageId, joined, { ...draft, text: joined }, emit);
      return;
    }
    this.sendMessageDelta(channel, draft.messageId, this.resolve(channel, draft.text, emit, ids), draft, emit);
  }

  private onMessageCompleted(draft: Extract<AgentEventDraft, { type: "message.completed" }>, emit: Emit): void {
    const channel = this.messages.get(draft.messageId);
    const ids = { messageId: draft.messageId, sessionId: draft.sessionId };
    if (channel !== undefined) {
      this.flushHeld(
        channel,
        draft.messageId,
        {
          type: "message.delta",
          messageId: draft.messageId,
          role: channel.role,
          kind: channel.kind,
          text: "",
          position: 0,
          ...(draft.sessionId ? { sessionId: draft.sessionId } : {}),
        },
        emit,
      );
      this.heldTemplates.delete(draft.messageId);
    }
    if (channel?.completed === true) {
      this.stats.protocolViolations++;
      const previous = channel.trueText ?? channel.emitted;
      if (draft.text === previous || draft.text === "") {
        this.repair(
          emit,
          "duplicate-completion",
          `message "${draft.messageId}" completed again with the same text; dropped`,
          draft.text.length,
          ids,
        );
        return;
      }
      this.repair(
        emit,
        "second-completion",
        `message "${draft.messageId}" completed twice with different text; the later text replaces the earlier`,
        0,
        ids,
      );
      channel.trueText = draft.text;
      emit(draft);
      return;
    }
    let text = draft.text;
    if (channel !== undefined && channel.deltas > 0) {
      const streamed = channel.trueText ?? channel.emitted;
      if (text === "" && streamed !== "") {
        // Codex-style empty completion that would wipe what was streamed: keep the streamed text.
        this.repair(
          emit,
          "empty-completion",
          `message "${draft.messageId}" completed with empty text after ${streamed.length} streamed characters; the streamed text is kept`,
          0,
          ids,
        );
        text = streamed;
      } else if (text === channel.rawConcat && text !== streamed) {
        // The dialect closed the message with the raw concatenation of its deltas (no final text
        // from the agent): use the repaired text instead.
        this.repair(
          emit,
          "final-from-repaired-deltas",
          `message "${draft.messageId}" had no final text from the agent; the repaired streamed text is used`,
          Math.max(text.length - streamed.length, 0),
          ids,
        );
        text = streamed;
      }
      if (draft.role === "assistant") this.remember(draft.messageId);
    } else if (channel === undefined && draft.role === "assistant") {
      // A complete message with no deltas under its id: is it the final copy of a message that was
      // streamed under another id (GLM, Cursor's recap)? Then it is a repeat, not new text.
      const twin = this.findStreamedTwin(draft);
      if (twin !== undefined) {
        this.repair(
          emit,
          "final-matched-by-content",
          `complete message "${draft.messageId}" repeats message "${twin}" streamed before; dropped`,
          draft.text.length,
          ids,
        );
        return;
      }
    }
    const state = channel ?? this.channelFor(this.messages, draft.messageId, draft.role, draft.kind, draft.sessionId);
    state.completed = true;
    state.trueText = text;
    // Only the final text is needed from here on; move the entry to the end of the eviction order.
    state.emitted = "";
    state.rawConcat = "";
    this.messages.delete(draft.messageId);
    this.messages.set(draft.messageId, state);
    this.forgetOldMessages();
    emit(text === draft.text ? draft : { ...draft, text });
  }

  private forgetOldMessages(): void {
    if (this.messages.size <= REMEMBERED_MESSAGES) return;
    for (const [id, channel] of this.messages) {
      if (this.messages.size <= REMEMBERED_MESSAGES) break;
      if (channel.completed) forget(this.messages, id);
    }
  }

  private remember(messageId: string): void {
    this.recentStreamed.push(messageId);
    if (this.recentStreamed.length > 4) this.recentStreamed.shift();
  }

  private findStreamedTwin(draft: Extract<AgentEventDraft, { type: "message.completed" }>): string | undefined {
    const wanted = draft.text.trim();
    if (wanted === "") return undefined;
    for (let i = this.recentStreamed.length - 1; i >= 0; i--) {
      const id = this.recentStreamed[i] as string;
      const channel = this.messages.get(id);
      if (channel === undefined || channel.kind !== draft.kind || channel.sessionId !== draft.sessionId) continue;
      if ((channel.trueText ?? channel.emitted).trim() === wanted) return id;
    }
    return undefined;
  }

  private countLargeTextDelta(): void {
    this.stats.largeDeltas++;
    if (++this.largeTextDeltas === LARGE_DELTA_PATTERN) this.hooks.onLargeDeltas?.(this.largeTextDeltas, this.largeDelta);
  }

  private onToolInputDelta(draft: Extract<AgentEventDraft, { type: "tool.input.delta" }>, emit: Emit): void {
    if (draft.text === "") return;
    if (draft.text.length > this.largeDelta) this.stats.largeDeltas++;
    const channel = this.channelFor(this.toolInputs, draft.toolCallId, "assistant", "text", draft.sessionId);
    const fresh = this.resolve(channel, draft.text, emit, { toolCallId: draft.toolCallId, sessionId: draft.sessionId });
    if (fresh === "") return;
    channel.emitted += fresh;
    emit(fresh === draft.text ? draft : { ...draft, text: fresh });
  }
}

/** Letters or digits: repeating pure punctuation ("| --- ", "...") is natural; repeating words is not. */
function hasWordChar(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** True when the overlap ends where a word or sentence could end. */
function isSafeBoundary(text: string, at: number): boolean {
  if (at >= text.length) return true;
  return SAFE_BOUNDARY.test(text[at - 1] ?? "") || SAFE_BOUNDARY.test(text[at] ?? "");
}
