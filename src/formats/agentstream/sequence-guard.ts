/**
 * Makes any order of events a sequence our own checker (src/formats/agentstream/rules.ts `checkSequence`)
 * accepts, so writers never pass an invalid order through. Writers get events from the reader,
 * which already closes what a dialect left open, but also from library callers, who may send
 * anything: an orphan tool result, a turn end without a start, a message completed twice.
 *
 * It repairs the way the repair stage does (docs/repair.md), and says so with a `repair` event:
 * a missing start is inserted; a repeat (started twice, completed twice, text after the end) is
 * dropped; a delta's position is set to where the text really is; at the end, what is still open
 * is closed. Output `seq` is renumbered 0, 1, 2, ... since events may be added or dropped.
 *
 * Memory: one entry per message, tool call or turn that is open, released when it completes; the
 * ids completed most recently (REMEMBERED_IDS per kind) are kept to recognise a repeat. An id
 * repeated after more than that many others completed is taken as new (a fresh start is inserted).
 */
import type { AgentEvent, AgentEventDraft, EventOf, MessageKind, MessageRole } from "../../model/events.ts";
import { createDispatch } from "../../encoding/dispatch.ts";

/** Completed ids remembered per kind (messages, tools, turns), oldest forgotten first. */
export const REMEMBERED_IDS = 1024;

/** Puts events in an order `checkSequence` accepts. */
export interface SequenceGuard {
  /** The events to write for `event` (it, possibly preceded by inserted ones, or a `repair` in its place). */
  push(event: AgentEvent): AgentEvent[];
  /** The events that close what is still open. */
  end(): AgentEvent[];
  /** Open and remembered entries, for tests that check state is released. */
  readonly size: { open: number; remembered: number };
}

interface OpenMessage {
  readonly role: MessageRole;
  readonly kind: MessageKind;
  readonly sessionId: string | undefined;
  text: string;
}

/** Creates a guard for one output stream. */
export function createSequenceGuard(): SequenceGuard {
  const guard = new SequenceGuardState();
  return {
    push(event) {
      guard.out = [];
      guard.onEvent(event);
      return guard.out;
    },
    end() {
      guard.out = [];
      for (const [messageId, open] of guard.messages) {
        guard.repair(
          "unclosed-message",
          `message "${messageId}" never completed; closed with the text it had`,
          { messageId },
          open.sessionId,
        );
        guard.emit(
          guard.withSession({ type: "message.completed", messageId, role: open.role, kind: open.kind, text: open.text }, open.sessionId),
        );
      }
      for (const [toolCallId, tool] of guard.tools) {
        guard.repair(
          "unclosed-tool",
          `tool call "${toolCallId}" never completed; closed as an error with no output`,
          { toolCallId },
          tool.sessionId,
        );
        guard.emit(guard.withSession({ type: "tool.completed", toolCallId, name: tool.name, isError: true }, tool.sessionId));
      }
      guard.messages.clear();
      guard.tools.clear();
      guard.turns.clear();
      return guard.out;
    },
    get size() {
      return {
        open: guard.messages.size + guard.tools.size + guard.turns.size,
        remembered: guard.completedMessages.size + guard.completedTools.size + guard.completedTurns.size,
      };
    },
  };
}

/** What the sequence guard remembers (open and recently completed ids), and one repair per event type. */
class SequenceGuardState {
  seq = 0;
  readonly messages = new Map<string, OpenMessage>();
  readonly tools = new Map<string, { readonly name: string; readonly sessionId: string | undefined }>();
  readonly turns = new Set<string>();
  readonly completedMessages = createRecentSet(REMEMBERED_IDS);
  readonly completedTools = createRecentSet(REMEMBERED_IDS);
  readonly completedTurns = createRecentSet(REMEMBERED_IDS);
  out: AgentEvent[] = [];

  emit(event: AgentEvent | AgentEventDraft): void {
    // Nearly always nothing was inserted or dropped before, so the event keeps its number: no copy.
    const n = this.seq++;
    const same = (event as Partial<AgentEvent>).seq === n && (event as Partial<AgentEvent>).v === 1;
    this.out.push(same ? (event as AgentEvent) : ({ ...event, v: 1, seq: n } as AgentEvent));
  }

  repair(
    kind: string,
    message: string,
    ids: { messageId?: string; toolCallId?: string },
    sessionId: string | undefined,
    removedChars = 0,
  ): void {
    const draft: AgentEventDraft = { type: "repair", kind, removedChars, message, ...ids };
    this.emit(sessionId === undefined ? draft : { ...draft, sessionId });
  }

  withSession<T extends AgentEventDraft>(draft: T, sessionId: string | undefined): T {
    return sessionId === undefined ? draft : { ...draft, sessionId };
  }

  startTool(toolCallId: string, type: string, sessionId: string | undefined): void {
    this.repair(
      "orphan-tool-event",
      `${type} for tool call "${toolCallId}" before tool.started; a start was inserted`,
      { toolCallId },
      sessionId,
    );
    this.emit(this.withSession({ type: "tool.started", toolCallId, name: "unknown" }, sessionId));
    this.tools.set(toolCallId, { name: "unknown", sessionId });
  }

  readonly onEvent = createDispatch<void>(
    {
      "message.started": this.onMessageStarted.bind(this),
      "message.delta": this.onMessageDelta.bind(this),
      "message.completed": this.onMessageCompleted.bind(this),
      "tool.started": this.onToolStarted.bind(this),
      "tool.input.delta": this.onToolInputOrProgress.bind(this),
      "tool.progress": this.onToolInputOrProgress.bind(this),
      "tool.completed": this.onToolCompleted.bind(this),
      "turn.started": this.onTurnStarted.bind(this),
      "turn.completed": this.onTurnCompleted.bind(this),
    },
    this.onOther.bind(this),
  );

  onMessageStarted(event: EventOf<"message.started">): void {
    const sessionId = event.sessionId;
    if (this.messages.has(event.messageId)) {
      this.repair(
        "repeated-start",
        `message "${event.messageId}" started twice; the repeat was dropped`,
        { messageId: event.messageId },
        sessionId,
      );
      return;
    }
    this.completedMessages.delete(event.messageId);
    this.messages.set(event.messageId, { role: event.role, kind: event.kind, sessionId, text: "" });
    this.emit(event);
  }

  onMessageDelta(event: EventOf<"message.delta">): void {
    const sessionId = event.sessionId;
    let open = this.messages.get(event.messageId);
    if (open === undefined) {
      if (this.completedMessages.has(event.messageId)) {
        this.repair(
          "delta-after-completion",
          `text for "${event.messageId}" after its message.completed was dropped`,
          { messageId: event.messageId },
          sessionId,
          event.text.length,
        );
        return;
      }
      this.repair(
        "orphan-delta",
        `message.delta for "${event.messageId}" before message.started; a start was inserted`,
        { messageId: event.messageId },
        sessionId,
      );
      this.emit(this.withSession({ type: "message.started", messageId: event.messageId, role: "assistant", kind: "text" }, sessionId));
      open = { role: "assistant", kind: "text", sessionId, text: "" };
      this.messages.set(event.messageId, open);
    }
    const position = open.text.length;
    if (event.position !== position) {
      this.repair(
        "delta-position",
        `message "${event.messageId}": delta at position ${event.position} written at ${position}, where the text so far ends`,
        { messageId: event.messageId },
        sessionId,
      );
    }
    open.text += event.text;
    this.emit(event.position === position ? event : { ...event, position });
  }

  onMessageCompleted(event: EventOf<"message.completed">): void {
    const sessionId = event.sessionId;
    if (!this.messages.delete(event.messageId) && this.completedMessages.has(event.messageId)) {
      this.repair(
        "duplicate-completion",
        `message "${event.messageId}" completed twice; the repeat was dropped`,
        { messageId: event.messageId },
        sessionId,
        event.text.length,
      );
      return;
    }
    this.completedMessages.add(event.messageId);
    this.emit(event);
  }

  onToolStarted(event: EventOf<"tool.started">): void {
    const sessionId = event.sessionId;
    if (this.tools.has(event.toolCallId)) {
      this.repair(
        "repeated-start",
        `tool call "${event.toolCallId}" started twice; the repeat was dropped`,
        { toolCallId: event.toolCallId },
        sessionId,
      );
      return;
    }
    this.completedTools.delete(event.toolCallId);
    this.tools.set(event.toolCallId, { name: event.name, sessionId });
    this.emit(event);
  }

  onToolInputOrProgress(event: EventOf<"tool.input.delta" | "tool.progress">): void {
    const sessionId = event.sessionId;
    if (!this.tools.has(event.toolCallId)) {
      if (this.completedTools.has(event.toolCallId)) {
        this.repair(
          "after-completion",
          `${event.type} for tool call "${event.toolCallId}" after it completed was dropped`,
          { toolCallId: event.toolCallId },
          sessionId,
        );
        return;
      }
      this.startTool(event.toolCallId, event.type, sessionId);
    }
    this.emit(event);
  }

  onToolCompleted(event: EventOf<"tool.completed">): void {
    const sessionId = event.sessionId;
    if (!this.tools.delete(event.toolCallId)) {
      if (this.completedTools.has(event.toolCallId)) {
        this.repair(
          "duplicate-completion",
          `tool call "${event.toolCallId}" completed twice; the repeat was dropped`,
          { toolCallId: event.toolCallId },
          sessionId,
        );
        return;
      }
      this.startTool(event.toolCallId, event.type, sessionId);
      this.tools.delete(event.toolCallId);
    }
    this.completedTools.add(event.toolCallId);
    this.emit(event);
  }

  onTurnStarted(event: EventOf<"turn.started">): void {
    this.completedTurns.delete(event.turnId);
    this.turns.add(event.turnId);
    this.emit(event);
  }

  onTurnCompleted(event: EventOf<"turn.completed">): void {
    const sessionId = event.sessionId;
    if (!this.turns.delete(event.turnId)) {
      if (this.completedTurns.has(event.turnId)) {
        this.repair("duplicate-completion", `turn "${event.turnId}" completed twice; the repeat was dropped`, {}, sessionId);
        return;
      }
      this.repair("orphan-turn-end", `turn.completed for turn "${event.turnId}" before turn.started; a start was inserted`, {}, sessionId);
      this.emit(this.withSession({ type: "turn.started", turnId: event.turnId }, sessionId));
    }
    this.completedTurns.add(event.turnId);
    this.emit(event);
  }

  /** Events with no handler of their own. */
  onOther(event: AgentEvent): void {
    this.emit(event);
  }
}

/** A set that forgets its oldest member past `capacity` (insertion order of a Set is the age). */
function createRecentSet(capacity: number): {
  has(id: string): boolean;
  add(id: string): void;
  delete(id: string): void;
  readonly size: number;
} {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add(id) {
      ids.delete(id);
      ids.add(id);
      if (ids.size > capacity) ids.delete(ids.values().next().value as string);
    },
    delete: (id) => void ids.delete(id),
    get size() {
      return ids.size;
    },
  };
}
