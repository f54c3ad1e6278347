/**
 * The Anthropic Messages API, streaming (`POST /v1/messages`, `stream: true`), as Claude Code reads it:
 * message_start, then per content block content_block_start / content_block_delta (text_delta,
 * thinking_delta + signature_delta, input_json_delta) / content_block_stop, then message_delta
 * (stop_reason, usage) and message_stop. `ping` may come at any time. Errors: a JSON body
 * `{"type":"error","error":{type,message}}` with a 4xx/5xx status, or an `error` event in the stream.
 * Source: https://docs.anthropic.com/en/api/messages-streaming
 */
import type { ServerResponse } from "node:http";
import { type Turn, splitText, usageOf } from "./script.ts";
import { openSse, sendJsonError } from "./sse.ts";

/** The model name we claim; Claude Code shows whatever the request asked for, so we echo that. */
const FALLBACK_MODEL = "claude-sonnet-4-5";

/** The Anthropic error type for an HTTP status, as the API names them. */
function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/** Answers one request with `turn`; `index` numbers ids and default usage. */
export async function answerAnthropic(
  res: ServerResponse,
  turn: Turn,
  index: number,
  model: string | undefined,
  shellTool = "Bash",
): Promise<void> {
  if (turn.error?.via === "http") {
    const status = turn.error.status ?? 400;
    res.setHeader("request-id", `req_${index}`);
    sendJsonError(res, status, {
      type: "error",
      error: { type: errorType(status), message: turn.error.message },
      request_id: `req_${index}`,
    });
    return;
  }
  const usage = usageOf(turn, index);
  const sse = openSse(res);
  const messageId = `msg_scripted_${index}`;
  const startUsage = {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: 1,
    service_tier: "standard",
  };
  sse.send("message_start", {
    type: "message_start",
    message: {
      id: messageId,
      type: "message",
      role: "assistant",
      model: model ?? FALLBACK_MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage,
    },
  });
  sse.send("ping", { type: "ping" });
  if (turn.delayMs !== undefined) await sse.wait(turn.delayMs, 500, () => sse.send("ping", { type: "ping" }));
  if (turn.error?.via === "stream") {
    sse.send("error", { type: "error", error: { type: "overloaded_error", message: turn.error.message } });
    sse.end();
    return;
  }
  let stopReason = "end_turn";
  (turn.blocks ?? []).forEach((block, blockIndex) => {
    const at = { index: blockIndex };
    if (block.type === "text") {
      sse.send("content_block_start", { type: "content_block_start", ...at, content_block: { type: "text", text: "" } });
      for (const text of splitText(block.text, block.chunks ?? 3))
        sse.send("content_block_delta", { type: "content_block_delta", ...at, delta: { type: "text_delta", text } });
    } else if (block.type === "thinking") {
      sse.send("content_block_start", {
        type: "content_block_start",
        ...at,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const thinking of splitText(block.text, 2))
        sse.send("content_block_delta", { type: "content_block_delta", ...at, delta: { type: "thinking_delta", thinking } });
      sse.send("content_block_delta", {
        type: "content_block_delta",
        ...at,
        delta: { type: "signature_delta", signature: `scripted-signature-${index}-${blockIndex}` },
      });
    } else {
      stopReason = "tool_use";
      const toolUseId = `toolu_scripted_${index}_${blockIndex}`;
      const name = block.type === "call" ? block.name : shellTool;
      sse.send("content_block_start", {
        type: "content_block_start",
        ...at,
        content_block: { type: "tool_use", id: toolUseId, name, input: {} },
      });
      const input = JSON.stringify(block.type === "call" ? block.input : { command: block.command, description: "Run a scripted command" });
      for (const partial_json of splitText(input, 3))
        sse.send("content_block_delta", { type: "content_block_delta", ...at, delta: { type: "input_json_delta", partial_json } });
    }
    sse.send("content_block_stop", { type: "content_block_stop", ...at });
  });
  sse.send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: usage.cacheWrite,
      cache_read_input_tokens: usage.cacheRead,
      output_tokens: usage.output,
    },
  });
  sse.send("message_stop", { type: "message_stop" });
  sse.end();
}

/**
 * The shell tool a request offers: Claude Code's `Bash`, OpenCode's `bash` (both take `{command, description}`).
 * A request that offers none is a side query (titles, topic checks) outside the agent loop.
 */
export function shellToolOf(body: unknown): string | undefined {
  const tools = (body as { tools?: { name?: string }[] } | undefined)?.tools;
  return Array.isArray(tools) ? tools.find((tool) => tool.name === "Bash" || tool.name === "bash")?.name : undefined;
}

/** A short text answer with zero usage, so side queries never change the totals a test checks. */
export async function answerAnthropicSideQuery(res: ServerResponse, index: number, model: string | undefined): Promise<void> {
  await answerAnthropic(res, { blocks: [{ type: "text", text: "ok", chunks: 1 }], usage: { input: 0, output: 0 } }, index, model);
}
