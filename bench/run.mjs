// `npm run bench`: our paths beside the floor (hand-written byte split + JSON.parse) and popular
// NDJSON libraries, in one run, each method in a fresh child process, rounds in shuffled order,
// ratios to the floor computed per round and reported as medians. Not a test: it asserts nothing.
//   node bench/run.mjs [--rounds N] [--mb SIZE] [--agent claude|codex|gemini] [--corpus both|bytes|delta] [--only substring,…] [--usage-mb SIZE] [--search-mb SIZE]
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { ensureCorpus } from "./corpus.mjs";
import { ensureDeltaStream } from "./delta-stream.mjs";
import { reportGeneratedMemory, reportMemory } from "./memory.mjs";
import { benchOtel } from "./otel.mjs";
import { benchRun } from "./run-agent.mjs";
import { benchServe } from "./serve.mjs";
import { benchTempDir } from "./temp.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const rounds = Number(opt("rounds", 3));
const sizeMb = Number(opt("mb", 64));
// --only a,b: the rows whose name contains any of the substrings (plus the floor), and the sections
// (memory, run, otel, usage, search, serve) named exactly.
const only = opt("only", "")
  .split(",")
  .filter((o) => o !== "");
const wants = (section) => only.length === 0 || only.includes(section);

const methods = [
  "floor",
  "floor+stringify+write",
  "split2+JSON.parse",
  "ndjson",
  "readline+JSON.parse",
  "ours: readEvents",
  "ours: convert --to agentstream",
  "ours: summary",
  ...extraMethods(),
].filter((m) => m === "floor" || only.length === 0 || only.some((o) => m.includes(o)));

/** Writer and renderer rows, for the formats and modes this build has. */
function extraMethods() {
  const out = [];
  try {
    const formats = JSON.parse(execFileSync(process.execPath, ["dist/cli/bin.js", "formats", "--json"], { encoding: "utf8" })).outputs.map(
      (f) => f.name,
    );
    for (const f of formats) if (f !== "agentstream") out.push(`ours: convert --to ${f}`);
  } catch {}
  out.push("ours: render --mode none", "ours: render --mode full");
  return out;
}

const agent = opt("agent", "claude");
const corpus = await ensureCorpus(`${agent}-${sizeMb}mb`, 42, sizeMb * 1e6, agent);
const bytes = statSync(corpus).size;
const tmp = benchTempDir("run");
console.log(`corpus: ${corpus} (${(bytes / 1e6).toFixed(1)} MB), node ${process.version}, ${rounds} rounds\n`);

function runMethod(method, file = corpus, repeat = 1) {
  const result = join(tmp, "result.json");
  try {
    execFileSync(process.execPath, ["bench/method.mjs", method, file, result, String(repeat)], {
      stdio: ["ignore", "ignore", "pipe"],
      maxBuffer: 1 << 24,
    });
  } catch (error) {
    process.stderr.write(
      `${method}: failed (${
        String(error.stderr ?? error)
          .split("\n")
          .find((l) => /Error/.test(l)) ?? "error"
      })\n`,
    );
    return { events: 0, ms: NaN, cpuMs: NaN, rssMb: NaN };
  }
  return JSON.parse(readFileSync(result, "utf8"));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const shuffle = (xs, seed) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

/**
 * The table for one corpus: every method in a fresh process per round, shuffled, each against the floor of the same
 * round, then the targets. Run on both corpora of the speed rule: the byte-heavy one and the delta-heavy stream.
 */
function measureTable(file, label) {
  const fileBytes = statSync(file).size;
  console.log(`\n== ${label}: ${file} (${(fileBytes / 1e6).toFixed(1)} MB)\n`);
  const samples = new Map(methods.map((m) => [m, []]));
  const failed = new Set();
  let lineCount = 0;
  for (let round = 0; round < rounds; round++) {
    const times = {};
    for (const method of shuffle(methods, round + 7)) {
      if (failed.has(method)) continue;
      const r = runMethod(method, file);
      if (Number.isNaN(r.ms)) failed.add(method);
      times[method] = r;
      if (method === "floor") lineCount = r.events;
    }
    for (const method of methods) {
      const t = times[method];
      if (t) samples.get(method).push({ ...t, ratio: times.floor.ms / t.ms, cpuRatio: times.floor.cpuMs / t.cpuMs });
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }

  const rows = methods
    .filter((m) => !failed.has(m))
    .map((method) => {
      const s = samples.get(method);
      const ms = median(s.map((x) => x.ms));
      return {
        method,
        mbps: fileBytes / 1e6 / (ms / 1000),
        linesPerSec: lineCount / (ms / 1000),
        rssMb: median(s.map((x) => x.rssMb)),
        ratio: median(s.map((x) => x.ratio)),
        cpuRatio: median(s.map((x) => x.cpuRatio)),
      };
    });
  const pad = (s, n) => String(s).padEnd(n);
  const padL = (s, n) => String(s).padStart(n);
  // "x floor (cpu)": the same ratio from CPU time, which a loaded machine disturbs much less than wall time.
  console.log(
    `${pad("method", 36)}${padL("MB/s", 8)}${padL("records/s", 12)}${padL("peak RSS MB", 13)}${padL("x floor", 9)}${padL("x floor (cpu)", 15)}`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.method, 36)}${padL(r.mbps.toFixed(1), 8)}${padL(Math.round(r.linesPerSec).toLocaleString("en"), 12)}${padL(r.rssMb.toFixed(0), 13)}${padL(r.ratio.toFixed(2), 9)}${padL(r.cpuRatio.toFixed(2), 15)}`,
    );
  }
  const cpuRatio = (name) => rows.find((r) => r.method === name)?.cpuRatio;
  const ratio = (name) => rows.find((r) => r.method === name)?.ratio;
  const rt = ratio("floor+stringify+write");
  const conv = ratio("ours: convert --to agentstream");
  const split2 = ratio("split2+JSON.parse");
  const both = (of) => `${of(ratio).toFixed(2)}x (cpu ${of(cpuRatio).toFixed(2)}x)`;
  console.log("\ntargets (wall, and from CPU time):");
  if (conv && rt)
    console.log(
      `  convert vs parse+stringify+write: ${both((r) => r("ours: convert --to agentstream") / r("floor+stringify+write"))} (target >= 0.8x)`,
    );
  if (conv && split2)
    console.log(
      `  convert vs split2+JSON.parse:      ${both((r) => r("ours: convert --to agentstream") / r("split2+JSON.parse"))} (target >= 2x)`,
    );
  if (ratio("ours: summary")) console.log(`  summary vs floor:                  ${both((r) => r("ours: summary"))} (target >= 1.0x)`);
  if (ratio("ours: render --mode full"))
    console.log(`  render vs floor:                   ${both((r) => r("ours: render --mode full"))} (target >= 0.7x)`);
}

const which = opt("corpus", "both");
if (which !== "delta") measureTable(corpus, `byte-heavy corpus (${agent})`);
if (which !== "bytes" && agent === "claude") measureTable(await ensureDeltaStream(), "delta-heavy stream (Claude Code, partial messages)");

// Latency: lines written one every 2 ms into a pipe; time from write to event. Two streams: any
// NDJSON (--from json) and a Claude Code stream detected automatically (its decoder compiles on first use).
for (const [label, dialect, lineOf] of [
  ["--from json", "json", (i) => `{"type":"probe","i":${i},"text":"hello world"}\n`],
  [
    "claude, auto-detected",
    "auto",
    (i) =>
      `${JSON.stringify({
        type: "stream_event",
        event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: ` word${i}` } },
        session_id: "s",
        parent_tool_use_id: null,
      })}\n`,
  ],
]) {
  const { readEvents } = await import("../dist/index.js");
  const input = new PassThrough();
  const written = [];
  const latencies = [];
  const consumer = (async () => {
    let lastLine = 0;
    for await (const event of readEvents(input, { dialect })) {
      const line = event.source?.line ?? 0;
      if (line > lastLine) {
        lastLine = line;
        latencies.push(performance.now() - written[line - 1]);
      }
    }
  })();
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 2));
    written.push(performance.now());
    input.write(lineOf(i));
  }
  input.end();
  await consumer;
  console.log(
    `latency ${label} (write → event, 200 lines 2 ms apart): first ${latencies[0].toFixed(3)} ms, median ${median(latencies).toFixed(3)} ms, max ${Math.max(...latencies).toFixed(3)} ms (target: first < 1 ms)`,
  );
}

// Memory: the same corpus streamed once and four times in one process: peak RSS should stay flat.
// With --only, only when asked for by name ("memory"): these runs take minutes.
const memory = wants("memory");
if (memory) {
  const once = runMethod("ours: summary", corpus, 1);
  const four = runMethod("ours: summary", corpus, 4);
  console.log(
    `peak RSS, summary over ${(bytes / 1e6).toFixed(0)} MB: ${once.rssMb.toFixed(0)} MB; over ${((4 * bytes) / 1e6).toFixed(0)} MB: ${four.rssMb.toFixed(0)} MB (flat = the stream is not held)`,
  );
}

// Memory over a real capture repeated to 100 MB and 1 GB (ids recur): peak RSS should not follow the size.
if (memory) reportMemory([100, 1000]);
// Every stream command of the built CLI over generated streams (1 KB Claude answers, own ids; tiny records; `{}`).
if (memory) reportGeneratedMemory([100, 1000]);
// `agentstream run`: latency added to each line, CPU beside the agent, log throughput, RSS under a line flood.
if (wants("run")) await benchRun(corpus);

if (wants("otel")) await benchOtel(corpus);
// `usage` over a generated tree of Claude session files, beside ccusage on the same files (bench/usage.mjs).
if (wants("usage")) execFileSync(process.execPath, ["bench/usage.mjs", "--mb", opt("usage-mb", "1000")], { stdio: "inherit" });

// `search` over a generated tree of Claude, Codex and Gemini sessions (bench/search.mjs): 100 MB by default, since the
// first build reads every session through the pipeline; `--search-mb 1000` measures the 1 GB tree.
if (wants("search")) execFileSync(process.execPath, ["bench/search.mjs", "--mb", opt("search-mb", "100")], { stdio: "inherit" });
// `agentstream serve` and `run --serve`: live latency to the viewer, 50 viewers of one live session.
if (wants("serve")) await benchServe();
