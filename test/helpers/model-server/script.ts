/**
 * What a scripted model answers. A script is a list of turns; each turn answers one model request
 * (one `POST /v1/messages` for Claude Code, one `POST /v1/responses` for Codex), in order.
 * The same script drives both APIs, so one scenario runs against both CLIs.
 */

/** Token counts the server reports for one turn; the CLIs' totals must add up to these. */
export interface TurnUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
  /** Reported by the Responses API only (`output_tokens_details.reasoning_tokens`). */
  readonly reasoning?: number;
}

/** One piece of the model's answer. */
export type Block =
  /** Assistant text, streamed in several deltas (`chunks`, at least 2 when the text allows). */
  | { readonly type: "text"; readonly text: string; readonly chunks?: number }
  /** Thinking (Anthropic) or a reasoning summary (Responses API). */
  | { readonly type: "thinking"; readonly text: string }
  /** A shell call: Claude Code's `Bash` tool, Codex's `exec_command` with `{"cmd": ...}`. */
  | { readonly type: "tool"; readonly command: string }
  /** A call of another tool by its name, with its input as given (an MCP server's tool: `mcp__agentstream__search`). */
  | { readonly type: "call"; readonly name: string; readonly input: Readonly<Record<string, unknown>> };

/** An API error instead of an answer. */
interface ApiError {
  /** `http`: a non-2xx status with a JSON body; `stream`: a 200 SSE stream that ends in an error event. */
  readonly via: "http" | "stream";
  /** HTTP status for `via: "http"`. @defaultValue 400 */
  readonly status?: number;
  readonly message: string;
}

/** One model turn. */
export interface Turn {
  readonly blocks?: readonly Block[];
  readonly error?: ApiError;
  /** Wait this long before the first content event (a slow model); Anthropic streams `ping`s meanwhile. */
  readonly delayMs?: number;
  readonly usage?: TurnUsage;
}

export type Script = readonly Turn[];

/** The usage a turn reports: its own, or a small deterministic default. */
export function usageOf(turn: Turn, index: number): Required<TurnUsage> {
  return { input: 100 + index, output: 10 + index, cacheRead: 0, cacheWrite: 0, reasoning: 0, ...turn.usage };
}

/** Cuts text into `count` nearly equal pieces (fewer when the text is shorter), never splitting a UTF-16 pair. */
export function splitText(text: string, count: number): string[] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / Math.max(1, count)));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces.length === 0 ? [""] : pieces;
}
