/**
 * The sequence rules of the agentstream format: what a stream of events may do that a schema
 * cannot say (order, pairing and continuity across events).
 */
import type { Issue } from "../../errors.ts";
import type { AgentEvent } from "../../model/events.ts";

/** Checks what a schema cannot: order, pairing and continuity across events. */
export interface SequenceChecker {
  /** Checks one event; returns the problems it shows. */
  check(event: AgentEvent, line?: number): Issue[];
  /** The stream ended: reports what was left open. */
  end(): Issue[];
}

/** Creates a state machine over one stream of agentstream events. */
export function createSequenceChecker(): SequenceChecker {
  let expectedSeq = 0;
  const messages = new Map<string, { length: number; completed: boolean }>();
  const tools = new Map<string, { completed: boolean }>();
  const turns = new Map<string, { completed: boolean }>();

  return {
    check(event, line) {
      const issues: Issue[] = [];
      const problem = (message: string, severity: Issue["severity"] = "error"): void => {
        const issue: Issue = { code: "out-of-order", severity, message };
        issues.push(line === undefined ? issue : { ...issue, line });
      };
      if (event.seq !== expectedSeq) problem(`seq ${event.seq} where ${expectedSeq} was expected (events lost, repeated or reordered)`);
      expectedSeq = event.seq + 1;
      switch (event.type) {
        case "message.started": {
          const known = messages.get(event.messageId);
          if (known !== undefined && !known.completed) problem(`message "${event.messageId}" started twice`);
          messages.set(event.messageId, { length: 0, completed: false });
          break;
        }
        case "message.delta": {
          const known = messages.get(event.messageId);
          if (known === undefined) {
            problem(`message.delta for message "${event.messageId}", which never started: emit message.started first`);
            messages.set(event.messageId, { length: event.position + event.text.length, completed: false });
            break;
          }
          if (known.completed) problem(`message.delta for message "${event.messageId}" after its message.completed`);
          if (event.position !== known.length) {
            problem(
              `message "${event.messageId}": delta at position ${event.position} but ${known.length} characters came before (${event.position > known.length ? "a gap" : "a repeat"})`,
            );
          }
          known.length = event.position + event.text.length;
          break;
        }
        case "message.completed": {
          const known = messages.get(event.messageId);
          if (known?.completed === true) problem(`message "${event.messageId}" completed twice`);
          messages.set(event.messageId, { length: event.text.length, completed: true });
          break;
        }
        case "tool.started": {
          const known = tools.get(event.toolCallId);
          if (known !== undefined && !known.completed) problem(`tool call "${event.toolCallId}" started twice`);
          tools.set(event.toolCallId, { completed: false });
          break;
        }
        case "tool.input.delta":
        case "tool.progress": {
          const known = tools.get(event.toolCallId);
          if (known === undefined) problem(`${event.type} for tool call "${event.toolCallId}", which never started`);
          else if (known.completed) problem(`${event.type} for tool call "${event.toolCallId}" after it completed`);
          break;
        }
        case "tool.completed": {
          const known = tools.get(event.toolCallId);
          if (known === undefined) problem(`tool.completed for tool call "${event.toolCallId}", which never started`);
          else if (known.completed) problem(`tool call "${event.toolCallId}" completed twice`);
          tools.set(event.toolCallId, { completed: true });
          break;
        }
        case "turn.started":
          turns.set(event.turnId, { completed: false });
          break;
        case "turn.completed": {
          const known = turns.get(event.turnId);
          if (known === undefined) problem(`turn.completed for turn "${event.turnId}", which never started`, "warning");
          else if (known.completed) problem(`turn "${event.turnId}" completed twice`);
          turns.set(event.turnId, { completed: true });
          break;
        }
        default:
          break;
      }
      return issues;
    },
    end() {
      const issues: Issue[] = [];
      for (const [id, state] of messages) {
        if (!state.completed) issues.push({ code: "out-of-order", severity: "warning", message: `message "${id}" never completed` });
      }
      for (const [id, state] of tools) {
        if (!state.completed) issues.push({ code: "out-of-order", severity: "warning", message: `tool call "${id}" never completed` });
      }
      return issues;
    },
  };
}

/** Checks a whole array of events: schema and sequence. */
export function checkSequence(events: Iterable<AgentEvent>): Issue[] {
  const checker = createSequenceChecker();
  const issues: Issue[] = [];
  for (const event of events) issues.push(...checker.check(event));
  issues.push(...checker.end());
  return issues;
}
