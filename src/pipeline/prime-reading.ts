/**
 * A live pipe's first line should not pay for compiling the reading path: V8 compiles functions on first use, and
 * a command reading a live source (stdin, a followed file) or `runAgent` runs a few throwaway lines through a
 * pipeline while the agent starts. The caller decides when (before its first live source); `readEvents` and
 * `createEventReader` never do it, and nothing is remembered between calls (a second call is cheap: compiled).
 */
import { createEventReader } from "./create-event-reader.ts";

/**
 * Runs a few lines of the most common shapes through throwaway readers; changes no result. `redact` as the
 * real reader's, so the redaction stage is compiled too when it will run.
 */
export function primeReadingPath(options: { readonly redact?: boolean | undefined } = {}): void {
  for (const sample of PRIMING_SAMPLES) {
    const reader = createEventReader({ onEvent() {} }, { redact: options.redact === true });
    reader.feed(sample);
    reader.end();
  }
}

// Ids as long as the agents' own: V8 interns a parsed string of under 10 characters, and code first compiled
// for interned ids would be compiled again at the first real one.
const SESSION = "00000000-0000-4000-8000-00000000a9e1";
const MESSAGE = "msg_01AAAAAAAAAAAAAAAAAAAAAAAA";

/** One tiny stream of the most common shapes: any NDJSON, Claude Code partial messages, Codex. */
export const PRIMING_SAMPLES: readonly string[] = [
  '{"type":"prime","text":"x"}\nprime\n{"type":"prime"}\n',
  `{"type":"stream_event","event":{"type":"message_start","message":{"id":"${MESSAGE}","type":"message","role":"assistant","content":[]}},"session_id":"${SESSION}","parent_tool_use_id":null}\n` +
    `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"session_id":"${SESSION}","parent_tool_use_id":null}\n`,
  `{"type":"thread.started","thread_id":"${SESSION}"}\n{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}\n`,
];
