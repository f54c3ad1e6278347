/** Synthetic session logs for the usage tests, written under a fresh temporary folder (removed when the test ends). */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../helpers/temp.ts";

export function tempTree(): { root: string; write(path: string, lines: readonly object[]): string } {
  const root = tempDir("usage");
  return {
    root,
    write(path, lines) {
      const file = join(root, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
      return file;
    },
  };
}

export interface ClaudeLine {
  readonly message: string;
  readonly request?: string | undefined;
  readonly session?: string;
  readonly time?: string;
  readonly model?: string;
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
  readonly sidechain?: boolean;
  readonly cwd?: string;
}

/** One Claude Code transcript assistant line (the fields a 1.0.x transcript writes). */
export function claudeLine(l: ClaudeLine): object {
  return {
    parentUuid: null,
    isSidechain: l.sidechain ?? false,
    userType: "external",
    cwd: l.cwd ?? "/work/demo",
    sessionId: l.session ?? "s-1",
    version: "1.0.98",
    message: {
      id: l.message,
      type: "message",
      role: "assistant",
      model: l.model ?? "claude-sonnet-4-20250514",
      content: [{ type: "text", text: "ok" }],
      stop_reason: null,
      usage: {
        input_tokens: l.input ?? 10,
        cache_creation_input_tokens: l.cacheWrite ?? 100,
        cache_read_input_tokens: l.cacheRead ?? 1000,
        output_tokens: l.output ?? 50,
        service_tier: "standard",
      },
    },
    ...(l.request === undefined ? {} : { requestId: l.request }),
    type: "assistant",
    uuid: `${l.message}-${l.output ?? 50}-${l.session ?? "s-1"}`,
    timestamp: l.time ?? "2026-03-01T10:00:00.000Z",
  };
}

/** A user line with a tool result (not parsed by the usage scanner, but its timestamp counts for the span). */
export function claudeUserLine(session: string, time: string, text = "done"): object {
  return {
    parentUuid: null,
    isSidechain: false,
    cwd: "/work/demo",
    sessionId: session,
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: text }] },
    uuid: `u-${time}`,
    timestamp: time,
  };
}

/** A Codex rollout token_count line: the thread's running total and the last request's. */
export function codexTokenCount(time: string, total: [number, number, number], last: [number, number, number]): object {
  const usage = ([input, cached, output]: [number, number, number]) => ({
    input_tokens: input,
    cached_input_tokens: cached,
    output_tokens: output,
    reasoning_output_tokens: 0,
    total_tokens: input + output,
  });
  return {
    timestamp: time,
    type: "event_msg",
    payload: {
      type: "token_count",
      info: { total_token_usage: usage(total), last_token_usage: usage(last), model_context_window: 258400 },
    },
  };
}

export function codexMeta(id: string, time: string, model = "gpt-5-codex"): object[] {
  return [
    { timestamp: time, type: "session_meta", payload: { id, timestamp: time, cwd: "/work/codex-demo", cli_version: "0.60.0" } },
    { timestamp: time, type: "turn_context", payload: { cwd: "/work/codex-demo", model } },
  ];
}
