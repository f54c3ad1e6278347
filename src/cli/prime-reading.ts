/**
 * A live pipe's first line should not pay for compiling the reading path: V8 compiles functions on first use, and
 * a command reading a live source (stdin, a followed file) runs a few throwaway lines through a pipeline while the
 * agent starts. The command decides when (once, before its first source); the library's readers never do it.
 */
import { createEventReader } from "../pipeline/create-event-reader.ts";

/** Runs a few lines of the most common shapes through a throwaway reader; changes no result. */
export function primeReadingPath(): void {
  for (const sample of PRIMING_SAMPLES) {
    const reader = createEventReader({ onEvent() {} });
    reader.feed(sample);
    reader.end();
  }
}

/** One tiny stream of the most common shapes: any NDJSON, Claude Code partial messages, Codex. */
const PRIMING_SAMPLES = [
  '{"type":"prime","text":"x"}\nprime\n{"type":"prime"}\n',
  '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"session_id":"s","parent_tool_use_id":null}\n',
  '{"type":"thread.started","thread_id":"t"}\n{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}\n',
];
