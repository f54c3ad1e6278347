/**
 * The OpenAI Chat Completions API, streaming (`POST /v1/chat/completions`, `stream: true`), as Qwen Code
 * reads it through the `openai` SDK: `data:` lines (no event names) of `chat.completion.chunk` objects, a
 * first delta with the role, `content` / `reasoning_content` text deltas, `tool_calls` deltas (id and name
 * first, then the arguments in pieces), a chunk with `finish_reason`, then, because the request asks for
 * `stream_options.include_usage`, a chunk with empty `choices` and `usage`, and `data: [DONE]`.
 * Errors: a JSON body `{"error":{message,type,code}}` with a 4xx/5xx status, or an `error` object as a
 * chunk inside the stream (the SDK throws it).
 * Source: https://platform.openai.com/docs/api-reference/chat-streaming
 */
import type { ServerResponse } from "node:http";
import { type Turn, splitText, usageOf } from "./script.ts";
import { openSse, sendJsonError } from "./sse.ts";

/** The shell tools a chat-completions CLI may offer, by CLI: Qwen Code's `run_shell_command`, then generic names. */
const SHELL_TOOLS = ["run_shell_command", "bash", "shell", "Bash"];

/** The shell tool a request offers (`tools[].function.name`), or undefined: then it is a side query. */
export function chatShellToolOf(body: unknown): string | undefined {
  const tools = (body as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return undefined;
  const names = tools.map((tool) => (tool as { function?: { name?: unknown } }).function?.name);
  return SHELL_TOOLS.find((name) => names.includes(name));
}

/** Answers one request with `turn`; `index` numbers ids and default usage. */
export async function answerChat(
  res: ServerResponse,
  turn: Turn,
  index: number,
  model: string | undefined,
  shellTool = "run_shell_command",
): Promise<void> {
  if (turn.error?.via === "http") {
    const status = turn.error.status ?? 400;
    sendJsonError(res, status, {
      error: { message: turn.error.message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code: null },
    });
    return;
  }
  const sse = openSse(res);
  const id = `chatcmpl-scripted-${index}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: object[], extra: object = {}): void =>
    sse.data({ id, object: "chat.completion.chunk", created, model: model ?? "qwen3-coder-plus", choices, ...extra });
  const delta = (fields: object, finish_reason: string | null = null): void => chunk([{ index: 0, delta: fields, finish_reason }]);
  delta({ role: "assistant", content: "" });
  if (turn.delayMs !== undefined) await sse.wait(turn.delayMs);
  if (turn.error?.via === "stream") {
    sse.data({ error: { message: turn.error.message, type: "server_error", code: "scripted" } });
    sse.end();
    return;
  }
  let calls = 0;
  for (const block of turn.blocks ?? []) {
    if (block.type === "text") for (const piece of splitText(block.text, block.chunks ?? 3)) delta({ content: piece });
    else if (block.type === "thinking") for (const piece of splitText(block.text, 2)) delta({ reasoning_content: piece });
    else {
      const call = calls++;
      const args = JSON.stringify(block.type === "call" ? block.input : { command: block.command });
      const name = block.type === "call" ? block.name : shellTool;
      delta({
        tool_calls: [{ index: call, id: `call_scripted_${index}_${call}`, type: "function", function: { name, arguments: "" } }],
      });
      for (const piece of splitText(args, 3)) delta({ tool_calls: [{ index: call, function: { arguments: piece } }] });
    }
  }
  delta({}, calls > 0 ? "tool_calls" : "stop");
  const usage = usageOf(turn, index);
  chunk([], {
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cacheRead },
      completion_tokens_details: { reasoning_tokens: usage.reasoning },
    },
  });
  sse.data("[DONE]");
  sse.end();
}
