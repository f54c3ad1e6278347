/**
 * One line of plain text that says what an event is, for formats that want a human-readable field
 * beside the data (witness `debug` content, codex-thread `log` message, AAEP `summary_normal`).
 * The data itself always travels in full elsewhere; this text is only a label.
 */
import { assertNever, type AgentEvent } from "../model/events.ts";

function join(parts: readonly (string | undefined)[]): string {
  return parts.filter((p): p is string => p !== undefined && p !== "").join(" ");
}

/** A short label for the event (never empty). */
export function describeEvent(event: AgentEvent): string {
  switch (event.type) {
    case "session.started":
      return join([
        "session started:",
        event.agent ?? "agent",
        event.agentVersion,
        event.model === undefined ? undefined : `(model ${event.model})`,
      ]);
    case "session.completed":
      return join([`session completed: ${event.status}`, event.error === undefined ? undefined : `(${event.error})`]);
    case "turn.started":
      return `turn ${event.turnId} started`;
    case "turn.completed":
      return join([`turn ${event.turnId} completed`, event.status, event.error]);
    case "message.started":
      return `${event.role} ${event.kind} message started`;
    case "message.delta":
      return event.text;
    case "message.completed":
      return event.text === "" ? `${event.role} ${event.kind} message` : event.text;
    case "tool.started":
      return `tool ${event.name} started`;
    case "tool.input.delta":
      return event.text;
    case "tool.progress":
      return event.output ?? event.status ?? `tool ${event.toolCallId} in progress`;
    case "tool.completed":
      return `tool ${event.name ?? event.toolCallId} ${event.isError ? "failed" : "completed"}`;
    case "file.changed":
      return `changed ${event.changes.map((c) => c.path).join(", ") || "files"}`;
    case "plan.updated":
      return `plan: ${event.items.length} item${event.items.length === 1 ? "" : "s"}`;
    case "usage":
      return `usage (${event.scope})`;
    case "metric":
      return event.text ?? event.name;
    case "rate_limit":
      return join([`rate limit ${event.status}`, event.limit, event.resetsAt === undefined ? undefined : `(resets ${event.resetsAt})`]);
    case "retry":
      return join([`retry ${event.attempt}${event.maxAttempts === undefined ? "" : ` of ${event.maxAttempts}`}`, event.error]);
    case "heartbeat":
      return "heartbeat";
    case "error":
      return event.message === "" ? `${event.scope} error` : event.message;
    case "notice":
      return event.text === "" ? event.kind : event.text;
    case "text":
      return event.text === "" ? "(blank line)" : event.text;
    case "repair":
      return event.message;
    case "unknown":
      return event.reason ?? "unknown record";
    default:
      return assertNever(event);
  }
}
