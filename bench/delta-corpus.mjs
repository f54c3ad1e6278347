// The delta-heavy corpus of the speed rule (issue #29): one Claude Code stream-json session with partial
// messages, as `claude -p --output-format stream-json --include-partial-messages` writes it: about 84k lines,
// most of them one small `content_block_delta` (median line about 250 bytes), tool calls streamed as
// `input_json_delta`, tool results from a few hundred bytes to tens of KB, and a few multi-MB ones.
// Deterministic (seeded PRNG). `node bench/delta-corpus.mjs [path]` writes it (default bench/.corpus/claude-delta.ndjson)
// and prints the path; `ensureDeltaCorpus()` does the same for a bench.
import { createWriteStream, existsSync, mkdirSync } from "node:fs";

function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["the", "test", "passes", "now", "function", "returns", "const", "await", "fetch(url)", "配置", "→", "🙂", "file", "line"];
const LINES = 84_000;
/** Where the multi-MB tool results go (fractions of the lines written). */
const BIG_AT = [0.25, 0.5, 0.75];

export function* generateDeltaLines(seed = 29) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("");
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const sid = uuid();
  const base = { parent_tool_use_id: null, session_id: sid };
  const event = (e) => ({ event: e, ...base, type: "stream_event", uuid: uuid() });
  const blob = (n) => {
    let s = "";
    while (s.length < n) s += `${words(10)} at src/file${s.length % 97}.ts:${s.length % 400}\n`;
    return s.slice(0, n);
  };
  let lines = 0;
  let big = 0;
  yield JSON.stringify({ type: "system", subtype: "init", cwd: "/w", model: "claude-sonnet-4-5", tools: ["Bash", "Read"], ...base });
  lines++;
  while (lines < LINES) {
    const mid = `msg_${hex(24)}`;
    yield JSON.stringify(
      event({
        type: "message_start",
        message: { id: mid, role: "assistant", model: "claude-sonnet-4-5", content: [], usage: { input_tokens: 10, output_tokens: 1 } },
      }),
    );
    yield JSON.stringify(event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    lines += 2;
    const parts = [];
    const deltas = 40 + Math.floor(rand() * 80);
    for (let i = 0; i < deltas; i++) {
      const text = ` ${words(1 + Math.floor(rand() * 6))}`;
      parts.push(text);
      yield JSON.stringify(event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }));
    }
    yield JSON.stringify(event({ type: "content_block_stop", index: 0 }));
    const tid = `toolu_${hex(24)}`;
    yield JSON.stringify(
      event({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: tid, name: "Bash", input: {} } }),
    );
    const input = JSON.stringify({ command: `npm test -- ${words(3)}`, description: "Run the tests" });
    for (let at = 0; at < input.length; at += 12)
      yield JSON.stringify(
        event({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: input.slice(at, at + 12) } }),
      );
    yield JSON.stringify(event({ type: "content_block_stop", index: 1 }));
    yield JSON.stringify({
      type: "assistant",
      message: {
        id: mid,
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          { type: "text", text: parts.join("") },
          { type: "tool_use", id: tid, name: "Bash", input: JSON.parse(input) },
        ],
        usage: { input_tokens: 10, output_tokens: deltas },
      },
      ...base,
      uuid: uuid(),
    });
    yield JSON.stringify(event({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: deltas } }));
    yield JSON.stringify(event({ type: "message_stop" }));
    lines += deltas + Math.ceil(input.length / 12) + 6;
    const isBig = big < BIG_AT.length && lines > (BIG_AT[big] ?? 1) * LINES;
    if (isBig) big++;
    const size = isBig
      ? 2_000_000 + Math.floor(rand() * 3_000_000)
      : rand() < 0.85
        ? 200 + Math.floor(rand() * 3000)
        : 8000 + Math.floor(rand() * 60_000);
    const out = blob(size);
    yield JSON.stringify({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: tid, content: out, is_error: false }] },
      ...base,
      uuid: uuid(),
      tool_use_result: { stdout: out, stderr: "", interrupted: false },
    });
    lines++;
  }
  yield JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 60000,
    num_turns: 1,
    result: "done",
    ...base,
    total_cost_usd: 1.5,
  });
}

/** Writes the corpus once (kept across runs) and returns its path. */
export async function ensureDeltaCorpus(path = new URL("./.corpus/claude-delta.ndjson", import.meta.url).pathname) {
  if (existsSync(path)) return path;
  mkdirSync(new URL("./.corpus/", import.meta.url), { recursive: true });
  const out = createWriteStream(path);
  for (const line of generateDeltaLines()) if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
  await new Promise((r) => out.end(r));
  return path;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await ensureDeltaCorpus(process.argv[2]));
