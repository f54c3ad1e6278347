/**
 * The Gemini API as Gemini CLI reads it through `@google/genai`: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
 * answers `data:` lines (no event names) of `GenerateContentResponse` chunks: `candidates[0].content.parts` with
 * text (`thought: true` for a thought summary) or a whole `functionCall` (the API never streams arguments), the
 * last chunk with `finishReason: "STOP"` and `usageMetadata`; `POST ...:generateContent` answers one JSON response
 * (Gemini CLI's side queries: its model router, the next-speaker check, asked for JSON). Errors: a JSON body
 * `{"error":{code,message,status}}` with a 4xx/5xx status, or an `error` object as a chunk in the stream.
 * Usage: `promptTokenCount` includes `cachedContentTokenCount`; `candidatesTokenCount` excludes `thoughtsTokenCount`.
 * Source: https://ai.google.dev/api/generate-content
 */
import type { ServerResponse } from "node:http";
import { type Turn, splitText, usageOf } from "./script.ts";
import { openSse, sendJsonError } from "./sse.ts";

/** A model Gemini CLI 0.61 knows, named with `-m` so that no router request picks one. */
export const GEMINI_MODEL = "gemini-2.5-flash";

/** The shell tool a request offers (`tools[].functionDeclarations[].name`), or undefined: then it is a side query. */
export function geminiShellToolOf(body: unknown): string | undefined {
  const tools = (body as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return undefined;
  const names = tools.flatMap((tool) => {
    const declarations = (tool as { functionDeclarations?: unknown }).functionDeclarations;
    return Array.isArray(declarations) ? declarations.map((declaration) => (declaration as { name?: unknown }).name) : [];
  });
  return names.includes("run_shell_command") ? "run_shell_command" : undefined;
}

/** The Gemini API's status names for the HTTP statuses a script uses. */
function statusName(status: number): string {
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status === 404) return "NOT_FOUND";
  if (status >= 500) return "INTERNAL";
  return "INVALID_ARGUMENT";
}

function usageMetadata(turn: Turn, index: number): object {
  const usage = usageOf(turn, index);
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output,
    totalTokenCount: usage.input + usage.output + usage.reasoning,
    cachedContentTokenCount: usage.cacheRead,
    thoughtsTokenCount: usage.reasoning,
  };
}

/** Answers one `streamGenerateContent` request with `turn`; `index` numbers ids and default usage. */
export async function answerGeminiStream(res: ServerResponse, turn: Turn, index: number, model: string): Promise<void> {
  if (turn.error?.via === "http") {
    const status = turn.error.status ?? 400;
    sendJsonError(res, status, { error: { code: status, message: turn.error.message, status: statusName(status) } });
    return;
  }
  const sse = openSse(res);
  const responseId = `scripted-${index}`;
  const chunk = (parts: object[], extra: object = {}): void =>
    sse.data({ candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }], modelVersion: model, responseId });
  if (turn.delayMs !== undefined) await sse.wait(turn.delayMs);
  if (turn.error?.via === "stream") {
    // A 4xx code: Gemini CLI retries 429 and 5xx with backoff, which a test would wait out.
    sse.data({ error: { code: 400, message: turn.error.message, status: "INVALID_ARGUMENT" } });
    sse.end();
    return;
  }
  let calls = 0;
  for (const block of turn.blocks ?? []) {
    if (block.type === "text") for (const text of splitText(block.text, block.chunks ?? 3)) chunk([{ text }]);
    else if (block.type === "thinking") chunk([{ text: block.text, thought: true }]);
    else
      chunk([
        {
          functionCall: {
            id: `call_scripted_${index}_${calls++}`,
            name: block.type === "call" ? block.name : "run_shell_command",
            args: block.type === "call" ? block.input : { command: block.command },
          },
        },
      ]);
  }
  sse.data({
    candidates: [{ content: { parts: [{ text: "" }], role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: usageMetadata(turn, index),
    modelVersion: model,
    responseId,
  });
  sse.end();
}

/** Answers a side query (`generateContent`, no shell tool): JSON text when JSON was asked for, with zero usage. */
export function answerGeminiSideQuery(res: ServerResponse, body: unknown, model: string): void {
  const config = (body as { generationConfig?: { responseMimeType?: unknown } } | undefined)?.generationConfig;
  // The next-speaker check and the router ask for JSON; "user" ends the turn, a score picks no model (-m was given).
  const text =
    config?.responseMimeType === "application/json"
      ? JSON.stringify({ next_speaker: "user", reasoning: "scripted", complexity_score: 1, complexity_reasoning: "scripted" })
      : "Scripted side answer.";
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 },
      modelVersion: model,
    }),
  );
}
