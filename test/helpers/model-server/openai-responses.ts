/**
 * The OpenAI Responses API, streaming (`POST /v1/responses`, `stream: true`), as Codex reads it:
 * response.created, response.in_progress, then per output item response.output_item.added, its
 * deltas (output_text, reasoning_summary_text, function_call_arguments) and response.output_item.done,
 * then response.completed with usage. Every event carries `sequence_number`. Errors: a JSON body
 * `{"error":{message,type,code}}` with a 4xx/5xx status, or `response.failed` in the stream.
 * Source: https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { ServerResponse } from "node:http";
import { type Block, type Turn, splitText, usageOf } from "./script.ts";
import { openSse, sendJsonError } from "./sse.ts";

/** A model name Codex 0.169 knows (an unknown one adds a "model metadata not found" error item). */
export const CODEX_MODEL = "gpt-5.5";

type OutputItem = Record<string, unknown> & { id: string; type: string };

/** Answers one request with `turn`; `index` numbers ids and default usage. */
export async function answerResponses(res: ServerResponse, turn: Turn, index: number, model: string | undefined): Promise<void> {
  if (turn.error?.via === "http") {
    const status = turn.error.status ?? 400;
    sendJsonError(res, status, {
      error: { message: turn.error.message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code: null },
    });
    return;
  }
  const sse = openSse(res);
  let sequence = 0;
  const send = (type: string, fields: object): void => sse.send(type, { type, sequence_number: sequence++, ...fields });
  const responseId = `resp_scripted_${index}`;
  const response = (status: string, output: OutputItem[], extra: object = {}): object => ({
    id: responseId,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: model ?? CODEX_MODEL,
    output,
    ...extra,
  });
  send("response.created", { response: response("in_progress", []) });
  send("response.in_progress", { response: response("in_progress", []) });
  if (turn.delayMs !== undefined) await sse.wait(turn.delayMs);
  if (turn.error?.via === "stream") {
    send("response.failed", {
      response: response("failed", [], { error: { code: "server_error", message: turn.error.message }, usage: null }),
    });
    sse.end();
    return;
  }
  const output = (turn.blocks ?? []).map((block, outputIndex) => streamItem(send, block, `${index}_${outputIndex}`, outputIndex));
  const usage = usageOf(turn, index);
  send("response.completed", {
    response: response("completed", output, {
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: usage.cacheRead },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: usage.reasoning },
        total_tokens: usage.input + usage.output,
      },
    }),
  });
  sse.end();
}

type Send = (type: string, fields: object) => void;

/** Streams one output item (added, deltas, done) and returns it as it appears in `response.completed`. */
function streamItem(send: Send, block: Block, suffix: string, output_index: number): OutputItem {
  if (block.type === "text") {
    const item_id = `msg_scripted_${suffix}`;
    send("response.output_item.added", {
      output_index,
      item: { id: item_id, type: "message", status: "in_progress", role: "assistant", content: [] },
    });
    const part = { type: "output_text", annotations: [], text: "" };
    send("response.content_part.added", { item_id, output_index, content_index: 0, part });
    for (const delta of splitText(block.text, block.chunks ?? 3))
      send("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
    send("response.output_text.done", { item_id, output_index, content_index: 0, text: block.text, logprobs: [] });
    send("response.content_part.done", { item_id, output_index, content_index: 0, part: { ...part, text: block.text } });
    const item = {
      id: item_id,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ ...part, text: block.text, logprobs: [] }],
    };
    send("response.output_item.done", { output_index, item });
    return item;
  }
  if (block.type === "thinking") {
    const item_id = `rs_scripted_${suffix}`;
    send("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
    const part = { type: "summary_text", text: "" };
    send("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part });
    for (const delta of splitText(block.text, 2))
      send("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
    send("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text: block.text });
    send("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { ...part, text: block.text } });
    const item = { id: item_id, type: "reasoning", summary: [{ type: "summary_text", text: block.text }] };
    send("response.output_item.done", { output_index, item });
    return item;
  }
  const item_id = `fc_scripted_${suffix}`;
  const call_id = `call_scripted_${suffix}`;
  const name = block.type === "call" ? block.name : "exec_command";
  const args = JSON.stringify(block.type === "call" ? block.input : { cmd: block.command });
  send("response.output_item.added", {
    output_index,
    item: { id: item_id, type: "function_call", status: "in_progress", call_id, name, arguments: "" },
  });
  for (const delta of splitText(args, 3)) send("response.function_call_arguments.delta", { item_id, output_index, delta });
  send("response.function_call_arguments.done", { item_id, output_index, arguments: args });
  const item = { id: item_id, type: "function_call", status: "completed", call_id, name, arguments: args };
  send("response.output_item.done", { output_index, item });
  return item;
}
