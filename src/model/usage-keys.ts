/**
 * What names one request in each agent's log: the dedupe rule per agent (docs/usage.md "Each request once"), one
 * definition shared by the decoders (src/agents/*), which emit one usage per request for `summary`, and the
 * usage scanners (src/usage/*), which count each request once for `usage` and `sessions`.
 */

/**
 * Claude Code writes one transcript line per content block of a response, each with the response's `message.id`,
 * `requestId` and usage so far: one request is message id + request id (the message id alone when a gateway
 * writes no requestId). A line without a message id is keyed by its `uuid`. Undefined: the line has no id at all.
 */
export function claudeUsageKey(messageId: string | undefined, requestId: string | undefined, uuid: string | undefined): string | undefined {
  if (messageId !== undefined) return `${messageId}|${requestId ?? ""}`;
  return uuid === undefined ? undefined : `uuid:${uuid}`;
}

/**
 * Codex writes a thread's running total (`total_token_usage`, `thread_token_usage`) again and again: one
 * snapshot is a thread with one running total. `thread` names the thread and its restart (a smaller total
 * starts the count again).
 */
export function codexUsageKey(thread: string, runningTotal: number): string {
  return `${thread}:${runningTotal}`;
}

/** Codex's running total in one number: `total_tokens` where written, else input (cached included) plus output. */
export function codexRunningTotal(totalTokens: number | undefined, input: number, output: number): number {
  return totalTokens !== undefined && totalTokens > 0 ? totalTokens : input + output;
}

/** Gemini CLI writes a model message again when its tool results arrive, and a resumed chat repeats it: one request is a session's message id. */
export function geminiUsageKey(sessionId: string, messageId: string): string {
  return `${sessionId}:${messageId}`;
}

/** Qwen Code writes one chat line per model response, each with its own `uuid`: one request is a session's line uuid. */
export function qwenUsageKey(sessionId: string, uuid: string): string {
  return `${sessionId}:${uuid}`;
}

/** Copilot CLI writes one `session.usage_record` per model request with the provider's response id: one request is a session's `apiCallId`. */
export function copilotUsageKey(sessionId: string, apiCallId: string): string {
  return `${sessionId}:${apiCallId}`;
}

/** OpenCode stores one `step-finish` part per model call, with that call's tokens and cost: one request is a session's step-finish part. */
export function opencodeUsageKey(sessionId: string, partId: string): string {
  return `${sessionId}:${partId}`;
}

/** Amp keeps a thread as one document whose assistant messages carry their call's usage: one request is a thread's message id. */
export function ampUsageKey(threadId: string, messageId: string): string {
  return `${threadId}:${messageId}`;
}
