// Deterministic benchmark corpus (seeded PRNG): agent output in the shapes Claude Code
// (stream-json with partial messages), Codex (exec --json) and Gemini CLI print — one agent per
// corpus, as a real stream is — with:
// many small text deltas, tool outputs from 100 B to 200 KB, a few multi-MB lines (a base64
// image, a huge log), and non-ASCII text (Vietnamese, CJK, emoji, ANSI escapes in tool output).
import { createWriteStream, existsSync, mkdirSync, statSync } from "node:fs";

/** A seeded PRNG (mulberry32): the same corpus on every machine. */
export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "the",
  "test",
  "passes",
  "now",
  "function",
  "returns",
  "Xin chào",
  "thế giới",
  "配置文件",
  "错误",
  "🙂",
  "👩‍💻",
  "🇻🇳",
  "→",
  "const",
  "x",
  "=",
  "await",
  "fetch(url)",
  '"quoted"',
  "back\\slash",
  "tab\there",
];

/** Part of the file's name: a changed generator writes a new file instead of reusing one made by the old. */
const CORPUS_VERSION = 2;
const ID_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `agent`: "claude" | "codex" | "gemini". */
export function* generateLines(seed, targetBytes, agent = "claude") {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const blob = (n) => {
    let s = "";
    while (s.length < n) s += `${words(12)}\n\u001b[32mok\u001b[0m line ${s.length}\n`;
    return s.slice(0, n);
  };
  let bytes = 0;
  let session = 0;
  const emit = (obj) => {
    const line = JSON.stringify(obj);
    bytes += Buffer.byteLength(line) + 1;
    return line;
  };
  const bigAt = new Set([0.2, 0.5, 0.8].map((f) => Math.floor(f * targetBytes)));
  let bigDone = 0;
  // Ids in the agents' own shapes (a session is a UUID, a Claude message `msg_01…`, a tool call `toolu_01…`), from
  // a generator of their own so the content stays the same: short made-up ids would be strings V8 interns, then
  // not once they grow past 9 characters, which no real stream does and which deoptimises whatever compares them.
  const idRand = prng(seed ^ 0x1d5);
  const base62 = (n) => Array.from({ length: n }, () => ID_CHARS[Math.floor(idRand() * ID_CHARS.length)]).join("");
  const hex = (n) => Array.from({ length: n }, () => Math.floor(idRand() * 16).toString(16)).join("");
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  while (bytes < targetBytes) {
    session++;
    const sid = uuid();
    const kind = { claude: 0, codex: 1, gemini: 2 }[agent];
    if (bigDone < bigAt.size && bytes > [...bigAt][bigDone]) {
      bigDone++;
      const size = 2_000_000 + Math.floor(rand() * 8_000_000); // 2–10 MB: a base64 image, a huge log
      const payload = "iVBORw0KGgo".repeat(Math.floor(size / 11));
      if (agent === "codex")
        yield emit({
          type: "item.completed",
          item: {
            id: `item_big${bigDone}`,
            type: "command_execution",
            command: "base64 image.png",
            aggregated_output: payload,
            exit_code: 0,
            status: "completed",
          },
        });
      else if (agent === "gemini")
        yield emit({
          type: "tool_result",
          timestamp: "2026-01-01T00:00:03.000Z",
          tool_id: `read_big${bigDone}`,
          status: "success",
          output: payload,
        });
      else
        yield emit({
          type: "user",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_01${base62(22)}`, content: payload }] },
          session_id: sid,
          parent_tool_use_id: null,
        });
    }
    if (kind === 0) {
      yield emit({
        type: "system",
        subtype: "init",
        session_id: sid,
        cwd: "/w",
        model: "claude-sonnet-4-5",
        tools: ["Bash", "Read", "Edit"],
        claude_code_version: "2.1.220",
        permissionMode: "default",
        apiKeySource: "none",
      });
      for (let turn = 0; turn < 4; turn++) {
        const mid = `msg_01${base62(22)}`;
        yield emit({
          type: "stream_event",
          event: {
            type: "message_start",
            message: { id: mid, role: "assistant", model: "claude-sonnet-4-5", content: [], usage: { input_tokens: 10, output_tokens: 1 } },
          },
          session_id: sid,
          parent_tool_use_id: null,
        });
        yield emit({
          type: "stream_event",
          event: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          session_id: sid,
          parent_tool_use_id: null,
        });
        const parts = [];
        const n = 20 + Math.floor(rand() * 60);
        for (let i = 0; i < n; i++) {
          const t = ` ${words(1 + Math.floor(rand() * 4))}`;
          parts.push(t);
          yield emit({
            type: "stream_event",
            event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } },
            session_id: sid,
            parent_tool_use_id: null,
          });
        }
        yield emit({
          type: "assistant",
          message: {
            id: mid,
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [{ type: "text", text: parts.join("") }],
            usage: { input_tokens: 10, output_tokens: n },
          },
          session_id: sid,
          parent_tool_use_id: null,
        });
        yield emit({ type: "stream_event", event: { type: "content_block_stop", index: 0 }, session_id: sid, parent_tool_use_id: null });
        const tid = `toolu_01${base62(22)}`;
        yield emit({
          type: "assistant",
          message: {
            id: mid,
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [{ type: "tool_use", id: tid, name: "Bash", input: { command: "npm test", description: "Run tests" } }],
            usage: { input_tokens: 10, output_tokens: n + 20 },
          },
          session_id: sid,
          parent_tool_use_id: null,
        });
        const size =
          rand() < 0.8
            ? 100 + Math.floor(rand() * 8000)
            : rand() < 0.9
              ? 10_000 + Math.floor(rand() * 190_000)
              : 64_000 + Math.floor(rand() * 900_000);
        const out = blob(size);
        yield emit({
          type: "user",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: tid, content: out, is_error: false }] },
          session_id: sid,
          parent_tool_use_id: null,
          tool_use_result: { stdout: out, stderr: "", interrupted: false },
        });
      }
      yield emit({
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 12000,
        num_turns: 4,
        result: "done",
        session_id: sid,
        total_cost_usd: 0.05,
        usage: { input_tokens: 40, output_tokens: 300, cache_read_input_tokens: 1000, cache_creation_input_tokens: 50 },
      });
    } else if (kind === 1) {
      yield emit({ type: "thread.started", thread_id: sid });
      yield emit({ type: "turn.started" });
      for (let i = 0; i < 6; i++) {
        yield emit({ type: "item.completed", item: { id: `item_${i * 3}`, type: "reasoning", text: `**Plan** ${words(20)}` } });
        const out = blob(rand() < 0.8 ? 100 + Math.floor(rand() * 8000) : 10_000 + Math.floor(rand() * 190_000));
        yield emit({
          type: "item.started",
          item: {
            id: `item_${i * 3 + 1}`,
            type: "command_execution",
            command: "bash -lc 'npm test'",
            aggregated_output: "",
            exit_code: null,
            status: "in_progress",
          },
        });
        yield emit({
          type: "item.completed",
          item: {
            id: `item_${i * 3 + 1}`,
            type: "command_execution",
            command: "bash -lc 'npm test'",
            aggregated_output: out,
            exit_code: 0,
            status: "completed",
          },
        });
        yield emit({ type: "item.completed", item: { id: `item_${i * 3 + 2}`, type: "agent_message", text: words(30) } });
      }
      yield emit({
        type: "turn.completed",
        usage: { input_tokens: 5000, cached_input_tokens: 3000, output_tokens: 700, reasoning_output_tokens: 200 },
      });
    } else {
      yield emit({ type: "init", timestamp: "2026-01-01T00:00:00.000Z", session_id: sid, model: "gemini-2.5-pro" });
      yield emit({ type: "message", timestamp: "2026-01-01T00:00:00.000Z", role: "user", content: words(10) });
      for (let i = 0; i < 40; i++)
        yield emit({ type: "message", timestamp: "2026-01-01T00:00:01.000Z", role: "assistant", content: ` ${words(3)}`, delta: true });
      yield emit({
        type: "tool_use",
        timestamp: "2026-01-01T00:00:02.000Z",
        tool_name: "read_file",
        tool_id: `read_${session}`,
        parameters: { file_path: "src/a.ts" },
      });
      yield emit({
        type: "tool_result",
        timestamp: "2026-01-01T00:00:03.000Z",
        tool_id: `read_${session}`,
        status: "success",
        output: blob(100 + Math.floor(rand() * 8000)),
      });
      yield emit({
        type: "result",
        timestamp: "2026-01-01T00:00:04.000Z",
        status: "success",
        stats: { total_tokens: 900, input_tokens: 700, output_tokens: 200, duration_ms: 4000, tool_calls: 1 },
      });
    }
  }
}

/** Writes the corpus file once (cached by name) and returns its path. */
export async function ensureCorpus(name, seed, targetBytes, agent = "claude") {
  const dir = new URL("./.corpus/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  const path = new URL(`${name}-v${CORPUS_VERSION}.ndjson`, dir).pathname;
  if (existsSync(path) && statSync(path).size >= targetBytes) return path;
  const out = createWriteStream(path);
  for (const line of generateLines(seed, targetBytes, agent)) {
    if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
  }
  await new Promise((r) => out.end(r));
  return path;
}
