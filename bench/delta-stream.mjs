// The delta-heavy benchmark stream: Claude Code stream-json with partial messages, as `claude -p
// --output-format stream-json --include-partial-messages` prints it (the shapes of the real captures in
// ../shared/fixtures/claude/), about 84k lines with a median line near 250 bytes (most lines are one
// `content_block_delta`), and a few multi-MB tool results. Deterministic (seeded), written once under
// bench/.corpus/. It is the second corpus of the speed rule beside bench/corpus.mjs's byte-heavy one.
//   node bench/delta-stream.mjs [--lines N]   prints the file's path (and its line statistics)
import { createWriteStream, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { prng } from "./corpus.mjs";

const WORDS = [
  "the",
  "test",
  "passes",
  "now",
  "function",
  "returns",
  "Xin chào",
  "配置文件",
  "🙂",
  "→",
  "const",
  "await",
  "fetch(url)",
  '"quoted"',
];

/** Lines of the stream, about `targetLines` of them. */
export function* deltaStreamLines(targetLines = 84_000, seed = 29) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("");
  const uuid = () => `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
  const sid = uuid();
  const envelope = { session_id: sid, parent_tool_use_id: null };
  const event = (inner) => JSON.stringify({ type: "stream_event", event: inner, ...envelope, uuid: uuid() });
  const blob = (n) => {
    let s = "";
    while (s.length < n) s += `${pick(WORDS)} \u001b[32mok\u001b[0m line ${s.length}\n`;
    return s.slice(0, n);
  };
  // Three multi-MB tool results, spread over the stream.
  const bigTurns = new Set([0.25, 0.5, 0.75].map((f) => Math.floor((f * targetLines) / 315)));
  let lines = 0;
  yield JSON.stringify({
    type: "system",
    subtype: "init",
    cwd: "/w",
    session_id: sid,
    tools: ["Bash", "Read"],
    model: "claude-opus-4-8",
    permissionMode: "default",
    uuid: uuid(),
  });
  for (let turn = 0; lines < targetLines; turn++) {
    const mid = `msg_01${hex(22)}`;
    const usage = {
      input_tokens: 16863,
      cache_creation_input_tokens: 3631,
      cache_read_input_tokens: 15362,
      output_tokens: 1,
      service_tier: "standard",
    };
    const message = {
      model: "claude-opus-4-8",
      id: mid,
      type: "message",
      role: "assistant",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    yield event({ type: "message_start", message });
    yield event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    const parts = [];
    const deltas = 250 + Math.floor(rand() * 100);
    for (let i = 0; i < deltas; i++) {
      const text = `${i === 0 ? "" : " "}${pick(WORDS)}${rand() < 0.3 ? ` ${pick(WORDS)}` : ""}`;
      parts.push(text);
      yield event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
    }
    yield JSON.stringify({
      type: "assistant",
      message: { ...message, content: [{ type: "text", text: parts.join("") }] },
      ...envelope,
      uuid: uuid(),
    });
    yield event({ type: "content_block_stop", index: 0 });
    const tid = `toolu_01${hex(22)}`;
    yield event({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: tid, name: "Bash", input: {} } });
    const input = JSON.stringify({ command: "npm test -- --reporter dot", description: "Run the tests" });
    for (let at = 0; at < input.length; at += 12) {
      yield event({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: input.slice(at, at + 12) } });
    }
    const toolUse = { type: "tool_use", id: tid, name: "Bash", input: JSON.parse(input) };
    yield JSON.stringify({ type: "assistant", message: { ...message, content: [toolUse] }, ...envelope, uuid: uuid() });
    yield event({ type: "content_block_stop", index: 1 });
    yield event({ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: deltas + 20 } });
    yield event({ type: "message_stop" });
    const size = bigTurns.has(turn) ? 2_000_000 + Math.floor(rand() * 3_000_000) : 200 + Math.floor(rand() * 6000);
    const out = blob(size);
    const result = { type: "tool_result", tool_use_id: tid, content: out, is_error: false };
    const toolUseResult = { stdout: out, stderr: "", interrupted: false, isImage: false };
    yield JSON.stringify({
      type: "user",
      message: { role: "user", content: [result] },
      ...envelope,
      uuid: uuid(),
      tool_use_result: toolUseResult,
    });
    lines += deltas + 15;
  }
  yield JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 120000,
    num_turns: 200,
    result: "done",
    ...envelope,
    total_cost_usd: 4.2,
    uuid: uuid(),
  });
}

/** Writes the stream once (cached by its line count) and returns its path. */
export async function ensureDeltaStream(targetLines = 84_000) {
  const dir = new URL("./.corpus/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  const path = new URL(`claude-deltas-${targetLines}.ndjson`, dir).pathname;
  if (existsSync(path) && statSync(path).size > 0) return path;
  const out = createWriteStream(path);
  for (const line of deltaStreamLines(targetLines)) {
    if (!out.write(`${line}\n`)) await new Promise((r) => out.once("drain", r));
  }
  await new Promise((r) => out.end(r));
  return path;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf("--lines");
  const path = await ensureDeltaStream(at === -1 ? 84_000 : Number(process.argv[at + 1]));
  const sizes = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => Buffer.byteLength(l))
    .sort((a, b) => a - b);
  const mb = (statSync(path).size / 1e6).toFixed(1);
  console.log(`${path}: ${sizes.length} lines, ${mb} MB, median line ${sizes[sizes.length >> 1]} B, largest ${sizes.at(-1)} B`);
}
