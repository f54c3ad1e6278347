/**
 * The sequence rules of the agentstream format: what a stream of events may do that a schema
 * cannot say (order, pairing and continuity across events).
 */
import type { Issue } from "../../errors.ts";
import type { AgentEvent } from "../../model/events.ts";
import { RecentIds } from "../../validation/recent-ids.ts";

/** Checks what a schema cannot: order, pairing and continuity across events. */
export interface SequenceChecker {
  /** Checks one event; returns the problems it shows. */
  check(event: AgentEvent, line?: number): Issue[];
  /** The stream ended: reports what was left open. */
  end(): Issue[];
}

/**
 * Completed ids remembered per kind (messages, tools, turns), oldest forgotten first: a repeat of a completed id (a
 * delta after the completion, a second completion) is reported as such within this many later completions of its kind;
 * past them it is reported as an event for an id that never started. Open ids are all kept until they complete, so the
 * checker's memory grows with what is open at once, not with the stream (docs/formats/agentstream.md).
 */
export const CHECKED_RECENT_IDS = 4096;

/** Creates a state machine over one stream of agentstream events. */
export function createSequenceChecker(): SequenceChecker {
  const state = new SequenceState();
  return {
    check(event, line) {
      const issues: Issue[] = [];
      state.problem = (message, severity = "error") => {
        const issue: Issue = { code: "out-of-order", severity, message };
        issues.push(line === undefined ? issue : { ...issue, line });
      };
      if (event.seq !== state.expectedSeq)
        state.problem(`seq ${event.seq} where ${state.expectedSeq} was expected (events lost, repeated or reordered)`);
      state.expectedSeq = event.seq + 1;
      state.check(event);
      return issues;
    },
    end() {
      const issues: Issue[] = [];
      for (const id of state.messages.keys())
        issues.push({ code: "out-of-order", severity: "warning", message: `message "${id}" never completed` });
      for (const id of state.tools)
        issues.push({ code: "out-of-order", severity: "warning", message: `tool call "${id}" never completed` });
      return issues;
    },
  };
}

/** What the checker holds: the open messages (their length so far), tools and turns, and the recently completed ids. */
class SequenceState {
  expectedSeq = 0;
  problem: (message: string, severity?: Issue["severity"]) => void = () => {};
  readonly messages = new Map<string, number>();
  readonly tools = new Set<string>();
  readonly turns = new Set<string>();
  /** Completed messages and their final length (a delta after the completion is checked against it). */
  readonly completedMessages = new RecentIds<number>(CHECKED_RECENT_IDS);
  readonly completedTools = new RecentIds<true>(CHECKED_RECENT_IDS);
  readonly completedTurns = new RecentIds<true>(CHECKED_RECENT_IDS);

  check(event: AgentEvent): void {
    switch (event.type) {
      case "message.started":
        if (this.messages.has(event.messageId)) this.problem(`message "${event.messageId}" started twice`);
        this.completedMessages.delete(event.messageId);
        this.messages.set(event.messageId, 0);
        break;
      case "message.delta":
        this.messageDelta(event.messageId, event.position, event.text.length);
        break;
      case "message.completed":
        if (!this.messages.delete(event.messageId) && this.completedMessages.has(event.messageId))
          this.problem(`message "${event.messageId}" completed twice`);
        this.completedMessages.set(event.messageId, event.text.length);
        break;
      case "tool.started":
        if (this.tools.has(event.toolCallId)) this.problem(`tool call "${event.toolCallId}" started twice`);
        this.completedTools.delete(event.toolCallId);
        this.tools.add(event.toolCallId);
        break;
      case "tool.input.delta":
      case "tool.progress":
        if (this.tools.has(event.toolCallId)) break;
        if (this.completedTools.has(event.toolCallId)) this.problem(`${event.type} for tool call "${event.toolCallId}" after it completed`);
        else this.problem(`${event.type} for tool call "${event.toolCallId}", which never started`);
        break;
      case "tool.completed":
        if (this.tools.delete(event.toolCallId)) this.completedTools.delete(event.toolCallId);
        else if (this.completedTools.has(event.toolCallId)) this.problem(`tool call "${event.toolCallId}" completed twice`);
        else this.problem(`tool.completed for tool call "${event.toolCallId}", which never started`);
        this.completedTools.set(event.toolCallId, true);
        break;
      case "turn.started":
        this.completedTurns.delete(event.turnId);
        this.turns.add(event.turnId);
        break;
      case "turn.completed":
        if (this.turns.delete(event.turnId)) this.completedTurns.delete(event.turnId);
        else if (this.completedTurns.has(event.turnId)) this.problem(`turn "${event.turnId}" completed twice`);
        else this.problem(`turn.completed for turn "${event.turnId}", which never started`, "warning");
        this.completedTurns.set(event.turnId, true);
        break;
      default:
        break;
    }
  }

  messageDelta(id: string, position: number, length: number): void {
    let before = this.messages.get(id);
    if (before === undefined) {
      before = this.completedMessages.get(id);
      if (before === undefined) {
        this.problem(`message.delta for message "${id}", which never started: emit message.started first`);
        this.messages.set(id, position + length);
        return;
      }
      this.problem(`message.delta for message "${id}" after its message.completed`);
    }
    if (position !== before) {
      this.problem(
        `message "${id}": delta at position ${position} but ${before} characters came before (${position > before ? "a gap" : "a repeat"})`,
      );
    }
    if (this.messages.has(id)) this.messages.set(id, position + length);
    else this.completedMessages.set(id, position + length);
  }
}

/** Checks a whole array of events: schema and sequence. */
export function checkSequence(events: Iterable<AgentEvent>): Issue[] {
  const checker = createSequenceChecker();
  const issues: Issue[] = [];
  for (const event of events) issues.push(...checker.check(event));
  issues.push(...checker.end());
  return issues;
}
