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
import type { AgentEvent, AgentEventDraft, MessageKind, MessageRole } from "../../model/events.ts";

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
  let seq = 0;
  const messages = new Map<string, OpenMessage>();
  const tools = new Map<string, { readonly name: string; readonly sessionId: string | undefined }>();
  const turns = new Set<string>();
  const completedMessages = createRecentSet(REMEMBERED_IDS);
  const completedTools = createRecentSet(REMEMBERED_IDS);
  const completedTurns = createRecentSet(REMEMBERED_IDS);
  let out: AgentEvent[] = [];

  function emit(event: AgentEvent | AgentEventDraft): void {
    // Nearly always nothing was inserted or dropped before, so the event keeps its number: no copy.
    const n = seq++;
    const same = (event as Partial<AgentEvent>).seq === n && (event as Partial<AgentEvent>).v === 1;
    out.push(same ? (event as AgentEvent) : ({ ...event, v: 1, seq: n } as AgentEvent));
  }

  function repair(
    kind: string,
    message: string,
    ids: { messageId?: string; toolCallId?: string },
    sessionId: string | undefined,
    removedChars = 0,
  ): void {
    const draft: AgentEventDraft = { type: "repair", kind, removedChars, message, ...ids };
    emit(sessionId === undefined ? draft : { ...draft, sessionId });
  }

  function withSession<T extends AgentEventDraft>(draft: T, sessionId: string | undefined): T {
    return sessionId === undefined ? draft : { ...draft, sessionId };
  }

  function startTool(toolCallId: string, type: string, sessionId: string | undefined): void {
    repair(
      "orphan-tool-event",
      `${type} for tool call "${toolCallId}" before tool.started; a start was inserted`,
      { toolCallId },
      sessionId,
    );
    emit(withSession({ type: "tool.started", toolCallId, name: "unknown" }, sessionId));
    tools.set(toolCallId, { name: "unknown", sessionId });
  }

  function onEvent(event: AgentEvent): void {
    const sessionId = event.sessionId;
    switch (event.type) {
      case "message.started": {
        if (messages.has(event.messageId)) {
          return repair(
            "repeated-start",
            `message "${event.messageId}" started twice; the repeat was dropped`,
            { messageId: event.messageId },
            sessionId,
          );
        }
        completedMessages.delete(event.messageId);
        messages.set(event.messageId, { role: event.role, kind: event.kind, sessionId, text: "" });
        return emit(event);
      }
      case "message.delta": {
        let open = messages.get(event.messageId);
        if (open === undefined) {
          if (completedMessages.has(event.messageId)) {
            return repair(
              "delta-after-completion",
              `text for "${event.messageId}" after its message.completed was dropped`,
              { messageId: event.messageId },
              sessionId,
              event.text.length,
            );
          }
          repair(
            "orphan-delta",
            `message.delta for "${event.messageId}" before message.started; a start was inserted`,
            { messageId: event.messageId },
            sessionId,
          );
          emit(withSession({ type: "message.started", messageId: event.messageId, role: "assistant", kind: "text" }, sessionId));
          open = { role: "assistant", kind: "text", sessionId, text: "" };
          messages.set(event.messageId, open);
        }
        const position = open.text.length;
        if (event.position !== position) {
          repair(
            "delta-position",
            `message "${event.messageId}": delta at position ${event.position} written at ${position}, where the text so far ends`,
            { messageId: event.messageId },
            sessionId,
          );
        }
        open.text += event.text;
        return emit(event.position === position ? event : { ...event, position });
      }
      case "message.completed": {
        if (!messages.delete(event.messageId) && completedMessages.has(event.messageId)) {
          return repair(
            "duplicate-completion",
            `message "${event.messageId}" completed twice; the repeat was dropped`,
            { messageId: event.messageId },
            sessionId,
            event.text.length,
          );
        }
        completedMessages.add(event.messageId);
        return emit(event);
      }
      case "tool.started": {
        if (tools.has(event.toolCallId)) {
          return repair(
            "repeated-start",
            `tool call "${event.toolCallId}" started twice; the repeat was dropped`,
            { toolCallId: event.toolCallId },
            sessionId,
          );
        }
        completedTools.delete(event.toolCallId);
        tools.set(event.toolCallId, { name: event.name, sessionId });
        return emit(event);
      }
      case "tool.input.delta":
      case "tool.progress": {
        if (!tools.has(event.toolCallId)) {
          if (completedTools.has(event.toolCallId)) {
            return repair(
              "after-completion",
              `${event.type} for tool call "${event.toolCallId}" after it completed was dropped`,
              { toolCallId: event.toolCallId },
              sessionId,
            );
          }
          startTool(event.toolCallId, event.type, sessionId);
        }
        return emit(event);
      }
      case "tool.completed": {
        if (!tools.delete(event.toolCallId)) {
          if (completedTools.has(event.toolCallId)) {
            return repair(
              "duplicate-completion",
              `tool call "${event.toolCallId}" completed twice; the repeat was dropped`,
              { toolCallId: event.toolCallId },
              sessionId,
            );
          }
          startTool(event.toolCallId, event.type, sessionId);
          tools.delete(event.toolCallId);
        }
        completedTools.add(event.toolCallId);
        return emit(event);
      }
      case "turn.started": {
        completedTurns.delete(event.turnId);
        turns.add(event.turnId);
        return emit(event);
      }
      case "turn.completed": {
        if (!turns.delete(event.turnId)) {
          if (completedTurns.has(event.turnId)) {
            return repair("duplicate-completion", `turn "${event.turnId}" completed twice; the repeat was dropped`, {}, sessionId);
          }
          repair("orphan-turn-end", `turn.completed for turn "${event.turnId}" before turn.started; a start was inserted`, {}, sessionId);
          emit(withSession({ type: "turn.started", turnId: event.turnId }, sessionId));
        }
        completedTurns.add(event.turnId);
        return emit(event);
      }
      default:
        return emit(event);
    }
  }

  return {
    push(event) {
      out = [];
      onEvent(event);
      return out;
    },
    end() {
      out = [];
      for (const [messageId, open] of messages) {
        repair("unclosed-message", `message "${messageId}" never completed; closed with the text it had`, { messageId }, open.sessionId);
        emit(withSession({ type: "message.completed", messageId, role: open.role, kind: open.kind, text: open.text }, open.sessionId));
      }
      for (const [toolCallId, tool] of tools) {
        repair(
          "unclosed-tool",
          `tool call "${toolCallId}" never completed; closed as an error with no output`,
          { toolCallId },
          tool.sessionId,
        );
        emit(withSession({ type: "tool.completed", toolCallId, name: tool.name, isError: true }, tool.sessionId));
      }
      messages.clear();
      tools.clear();
      turns.clear();
      return out;
    },
    get size() {
      return {
        open: messages.size + tools.size + turns.size,
        remembered: completedMessages.size + completedTools.size + completedTurns.size,
      };
    },
  };
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
