/**
 * The terminal view: any agent's events as a person would read them. Append-only (no cursor
 * movement, no carriage-return rewrites), so it reads right in a terminal, a pipe, a CI log, or a
 * console that strips ANSI. Never touches `process`: output goes through `write`.
 */
import { assertNever, type AgentEvent } from "../model/events.ts";
import { sanitizeForTerminal } from "./_sanitize.ts";

/** How much colour and structure the output may use. */
export type RenderMode = "full" | "basic" | "none";

export interface RendererOptions {
  /** Receives output text; called once per `render` at most (batched). */
  write(text: string): void;
  /** @defaultValue "none" */
  mode?: RenderMode;
  /** Terminal width, for rules and indentation. @defaultValue 80 */
  width?: number;
  /** How much to show. @defaultValue "normal" */
  verbosity?: "quiet" | "normal" | "verbose" | "full";
}

export interface TerminalRenderer {
  render(event: AgentEvent): void;
  end(): void;
}

const SGR = {
  reset: "\x1b[0m",
  bold: "\x1b[1m",
  dim: "\x1b[2m",
  italic: "\x1b[3m",
  red: "\x1b[31m",
  green: "\x1b[32m",
  yellow: "\x1b[33m",
  cyan: "\x1b[36m",
  grey: "\x1b[90m",
} as const;

const TOOL_OUTPUT_LINES = 8;

/** Creates a renderer; call `render` for each event and `end` once. */
export function createTerminalRenderer(options: RendererOptions): TerminalRenderer {
  const mode = options.mode ?? "none";
  const verbosity = options.verbosity ?? "normal";
  const color = (style: keyof typeof SGR, text: string): string => (mode === "none" || text === "" ? text : `${SGR[style]}${text}${SGR.reset}`);
  const clean = (text: string): string => sanitizeForTerminal(text);
  const streamed = new Set<string>(); // messages whose deltas were shown
  let openMessage: string | undefined; // a message whose text is mid-line
  let atLineStart = true;
  const toolNames = new Map<string, string>();
  let shownAnswer = false;

  const out = (text: string): void => {
    if (text === "") return;
    options.write(text);
    atLineStart = text.endsWith("\n");
  };
  const closeOpen = (): string => {
    if (openMessage === undefined) return "";
    openMessage = undefined;
    return atLineStart ? "" : "\n";
  };
  const line = (text: string): void => out(`${closeOpen()}${text}\n`);

  function styleFor(kind: string, role: string): (text: string) => string {
    if (kind !== "text") return (t) => color(mode === "full" ? "dim" : "cyan", t);
    if (role === "user") return (t) => color("bold", t);
    return (t) => color("green", t);
  }

  return {
    render(event) {
      switch (event.type) {
        case "session.started":
          if (event.parentSessionId === undefined) {
            const what = [event.agent, event.agentVersion, event.model && `(${event.model})`].filter(Boolean).join(" ");
            line(color("grey", clean(`● session ${event.sessionId ?? ""} ${what}`.replace(/\s+/g, " ").trim())));
          } else line(color("grey", clean(`  ↳ subagent ${event.sessionId ?? ""}`)));
          break;
        case "message.started":
          break;
        case "message.delta": {
          if (event.text === "") break;
          let prefix = "";
          if (openMessage !== event.messageId) prefix = closeOpen();
          openMessage = event.messageId;
          streamed.add(event.messageId);
          shownAnswer = true;
          out(prefix + color(event.messageId.includes("reason") ? "cyan" : "green", clean(event.text)));
          break;
        }
        case "message.completed": {
          if (streamed.has(event.messageId)) {
            if (openMessage === event.messageId) out(closeOpen());
            break;
          }
          if (event.text === "" || (event.role === "user" && verbosity !== "verbose" && verbosity !== "full")) break;
          if (event.role === "assistant" && event.kind === "text") shownAnswer = true;
          const style = styleFor(event.kind, event.role);
          const label = event.kind === "text" ? (event.role === "user" ? "› " : "") : "∴ ";
          line(style(clean(`${label}${event.text}`)));
          break;
        }
        case "tool.started":
          toolNames.set(event.toolCallId, event.name);
          line(color("yellow", clean(`→ ${event.name}${keyArgument(event.input)}`)));
          break;
        case "tool.input.delta":
        case "tool.progress":
          break;
        case "tool.completed": {
          if (verbosity === "quiet") break;
          const text = event.output ?? "";
          const lines = text.split("\n");
          const limit = verbosity === "full" ? Infinity : verbosity === "verbose" ? 40 : TOOL_OUTPUT_LINES;
          const shown = lines.slice(0, limit).map((l) => `  ${l}`).join("\n");
          const hidden = lines.length - Math.min(lines.length, limit);
          const status = event.isError ? color("red", "✗") : color("green", "✓");
          const exit = event.exitCode !== undefined && event.exitCode !== 0 ? ` (exit ${event.exitCode})` : "";
          line(`${status} ${clean(event.name ?? toolNames.get(event.toolCallId) ?? "tool")}${exit}`);
          if (text.trim() !== "") line(color("grey", clean(shown)) + (hidden > 0 ? `\n  ${color("dim", `… ${hidden} more lines hidden`)}` : ""));
          break;
        }
        case "file.changed":
          for (const change of event.changes) line(color("yellow", clean(`✎ ${change.kind} ${change.path}`)));
          break;
        case "plan.updated":
          line(clean(event.items.map((i) => `${i.status === "completed" ? "☑" : i.status === "in_progress" ? "◐" : "☐"} ${i.text}`).join("\n")));
          break;
        case "metric":
          line(color("italic", clean(formatMetric(event.name, event.text, event.values))));
          break;
        case "usage":
        case "turn.started":
        case "turn.completed":
        case "repair":
          break;
        case "rate_limit":
          if (event.status !== "allowed") line(color("yellow", clean(`⏳ rate limit ${event.status}${event.resetsAt ? ` until ${event.resetsAt}` : ""}`)));
          break;
        case "retry":
          line(color("yellow", clean(`↻ retry ${event.attempt}${event.maxAttempts ? `/${event.maxAttempts}` : ""}${event.error ? `: ${event.error}` : ""}`)));
          break;
        case "heartbeat":
          break;
        case "error":
          line(color("red", clean(`✗ ${event.scope} error: ${event.message}`)));
          break;
        case "notice":
          if (verbosity === "verbose" || verbosity === "full" || event.level === "warning") line(color("grey", clean(`ℹ ${event.text}`)));
          break;
        case "text":
          line(clean(event.text));
          break;
        case "unknown":
          if (verbosity === "verbose" || verbosity === "full") line(color("grey", clean(`? ${event.reason ?? "unknown record"}`)));
          break;
        case "session.completed": {
          // The final answer is never lost: shown here when no assistant text was shown before.
          if (event.finalText !== undefined && event.finalText !== "" && !shownAnswer) line(color("green", clean(event.finalText)));
          const parts = [
            event.status,
            event.durationMs !== undefined ? `${(event.durationMs / 1000).toFixed(1)}s` : "",
            event.turns !== undefined ? `${event.turns} turns` : "",
            event.usage ? `${event.usage.inputTokens ?? "?"} in / ${event.usage.outputTokens ?? "?"} out tokens` : "",
            event.costUsd !== undefined ? `$${event.costUsd.toFixed(4)}` : "",
          ].filter(Boolean);
          const style = event.status === "success" ? "green" : "red";
          line(color(style, clean(`● ${parts.join(" · ")}${event.error ? ` — ${event.error}` : ""}`)));
          break;
        }
        default:
          assertNever(event);
      }
    },
    end() {
      out(closeOpen());
    },
  };
}

/** The argument worth showing for a tool call: the command, the file path, the query. */
export function keyArgument(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const record = input as Record<string, unknown>;
  for (const key of ["command", "cmd", "file_path", "path", "filePath", "pattern", "query", "url", "description", "prompt"]) {
    const value = record[key];
    if (typeof value === "string" && value !== "") return ` ${oneLine(value, 100)}`;
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return ` ${oneLine(value.join(" "), 100)}`;
  }
  return "";
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The Witness display rule for metrics: "Effective Temperature: 0.650 (state=sync, k=0.013, reflex=0.720)". */
export function formatMetric(name: string, text: string | undefined, values: Record<string, unknown>): string {
  const num = (v: unknown): string => (typeof v === "number" ? v.toFixed(3) : String(v));
  if (typeof values.temperature === "number" && ("k" in values || "state" in values || "reflex_score" in values)) {
    const extras = [
      values.state !== undefined ? `state=${String(values.state)}` : "",
      values.k !== undefined ? `k=${num(values.k)}` : "",
      values.reflex_score !== undefined ? `reflex=${num(values.reflex_score)}` : "",
    ].filter(Boolean);
    return `Effective Temperature: ${num(values.temperature)}${extras.length ? ` (${extras.join(", ")})` : ""}`;
  }
  const pairs = Object.entries(values).map(([k, v]) => `${k}=${typeof v === "number" ? num(v) : JSON.stringify(v)}`);
  return `${text ?? name}${pairs.length ? ` (${pairs.join(", ")})` : ""}`;
}
