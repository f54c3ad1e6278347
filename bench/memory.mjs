// Peak RSS as the stream grows, two families of input:
// - a real capture (../shared/fixtures) repeated to 100 MB and 1 GB, read as one stream, so ids recur
//   as they do in a long or concatenated log (bench/method.mjs, in-process, nothing written);
// - generated inputs (issue #28): a Claude stream-json session of 1 KB answers, each its own message
//   id, a tool call every tenth answer; lines of tiny records; lines of `{}`. Every command is the
//   built CLI (dist/), run under /usr/bin/time -v, output to /dev/null: peak RSS per command and size.
// Flat figures mean per-message, per-tool and per-session state is released.
// Two rows that need a second party (`--serve`, `--publish`, or both by default with --feeds):
// - `serve` following a run log that is appended as fast as it reads, while `--viewers` (default 2) SSE viewers
//   read its feed to the end: serve's peak RSS (VmHWM), every viewer checked to get every event;
// - `publish` of the generated Claude stream to a nats-server on loopback (scripts/install-test-deps.sh
//   installs it), under /usr/bin/time -v: peak RSS, events/s.
// At 1 GB each of these takes minutes (the viewers are read by this process): --sizes 100 is the default.
//   node bench/memory.mjs [--sizes 100,1000] [--commands render,run,...] [--captures] [--feeds | --serve | --publish] [--viewers 2]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { request } from "node:http";
import { createServer, connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchTempDir } from "./temp.mjs";

const captures = [
  ["claude", "../shared/fixtures/claude/meridian_streaming_turn_partial.ndjson"],
  ["codex", "../shared/fixtures/codex/tauceti_0.160_mcp_tool_call_structured_content.jsonl"],
];
const commands = { summary: "ours: summary", convert: "ours: convert --to agentstream" };

/** Peak RSS in MB and wall time of `command` over `file` repeated to `sizeMb`. */
export function measureMemory(file, sizeMb, command) {
  const repeat = Math.max(1, Math.round((sizeMb * 1e6) / statSync(file).size));
  const result = join(benchTempDir("mem"), "result.json");
  execFileSync(process.execPath, ["bench/method.mjs", commands[command], file, result, String(repeat)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return JSON.parse(readFileSync(result, "utf8"));
}

/** Prints one row per capture and command: peak RSS at each size. */
export function reportMemory(sizes = [100, 1000], which = Object.keys(commands)) {
  console.log(`\npeak RSS over a real capture repeated (ids recur), MB: ${sizes.map((s) => `${s} MB`).join(" / ")}`);
  for (const [agent, file] of captures) {
    if (!existsSync(file)) {
      console.log(`  ${agent}: ${file} is absent (../shared), skipped`);
      continue;
    }
    for (const command of which) {
      const rows = sizes.map((size) => measureMemory(file, size, command));
      console.log(
        `  ${agent.padEnd(7)} ${command.padEnd(8)} ${rows.map((r) => `${r.rssMb.toFixed(0)} MB (${(r.ms / 1000).toFixed(0)} s)`).join(" / ")}`,
      );
    }
  }
}

const session = "5e55104e-0000-4000-8000-000000000028";
const answer = "lorem ipsum dolor sit amet ".repeat(38).slice(0, 1000);

/** The lines of one turn of the Claude stream: a 1 KB answer under its own message id; every tenth, a tool call and its result. */
function claudeTurn(i) {
  const message = (id, content) =>
    JSON.stringify({
      type: "assistant",
      message: {
        model: "claude-sonnet-4-5",
        id,
        type: "message",
        role: "assistant",
        content,
        stop_reason: null,
        usage: { input_tokens: 3, cache_read_input_tokens: 1200, output_tokens: 250 },
      },
      parent_tool_use_id: null,
      session_id: session,
    });
  const lines = [message(`msg_${String(i).padStart(12, "0")}`, [{ type: "text", text: `${i} ${answer}` }])];
  if (i % 10 === 9) {
    const tool = `toolu_${String(i).padStart(12, "0")}`;
    lines.push(
      message(`msg_${String(i).padStart(12, "0")}t`, [{ type: "tool_use", id: tool, name: "Bash", input: { command: `echo ${i}` } }]),
      JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: tool, content: `${i}`, is_error: false }] },
        parent_tool_use_id: null,
        session_id: session,
      }),
    );
  }
  return `${lines.join("\n")}\n`;
}

const generators = {
  /** Claude stream-json: init, answers of 1 KB each under their own message id, a result. */
  claude: {
    head: () =>
      `${JSON.stringify({ type: "system", subtype: "init", cwd: "/w", session_id: session, model: "claude-sonnet-4-5", tools: ["Bash"] })}\n`,
    line: claudeTurn,
    tail: () =>
      `${JSON.stringify({ type: "result", subtype: "success", is_error: false, num_turns: 1, result: "done", session_id: session, usage: { input_tokens: 3, output_tokens: 5 } })}\n`,
  },
  /** Tiny records of one unknown type (13 bytes a line, as the issue's 1M records in 13 MB). */
  tiny: { head: () => "", line: (i) => `{"n":${100000 + (i % 900000)}}\n`, tail: () => "" },
  /** Lines of `{}`. */
  empty: { head: () => "", line: () => "{}\n", tail: () => "" },
};

/** Writes `kind`'s stream of about `sizeMb` MB to a fresh file (written in 1 MB batches). */
export function generate(kind, sizeMb) {
  const gen = generators[kind];
  const file = join(benchTempDir(`mem-${kind}`), `${kind}-${sizeMb}.ndjson`);
  const fd = openSync(file, "w");
  let written = writeSync(fd, gen.head());
  let batch = [];
  let batchBytes = 0;
  for (let i = 0; written + batchBytes < sizeMb * 1e6; i++) {
    const line = gen.line(i);
    batch.push(line);
    batchBytes += line.length;
    if (batchBytes >= 1e6) {
      written += writeSync(fd, batch.join(""));
      batch = [];
      batchBytes = 0;
    }
  }
  writeSync(fd, batch.join("") + gen.tail());
  closeSync(fd);
  return file;
}

const cli = "dist/cli/bin.cjs";
/** The commands over the generated inputs: argv after the CLI for a file (and a scratch folder), and the input it reads. */
const runs = {
  render: { input: "claude", argv: (f) => ["render", "--mode", "basic", f] },
  run: { input: "claude", argv: (f) => ["run", "--from", "claude", "--mode", "basic", "--heartbeat", "0", "--", "cat", f] },
  "run --log": {
    input: "claude",
    argv: (f, dir) => ["run", "--from", "claude", "--mode", "basic", "--heartbeat", "0", "--log", dir, "--", "cat", f],
  },
  "run --mode none --log": {
    input: "claude",
    argv: (f, dir) => ["run", "--from", "claude", "--mode", "none", "--heartbeat", "0", "--log", dir, "--", "cat", f],
  },
  "run --log --json": {
    input: "claude",
    argv: (f, dir) => ["run", "--from", "claude", "--json", "--heartbeat", "0", "--log", dir, "--", "cat", f],
  },
  validate: { input: "claude", argv: (f) => ["validate", f] },
  summary: { input: "claude", argv: (f) => ["summary", f] },
  convert: { input: "claude", argv: (f) => ["convert", "--to", "agentstream", f] },
  html: { input: "claude", argv: (f) => ["html", f] },
  "html tiny": { input: "tiny", argv: (f) => ["html", f] },
  "html {}": { input: "empty", argv: (f) => ["html", f] },
  "validate tiny": { input: "tiny", argv: (f) => ["validate", f] },
  "render tiny": { input: "tiny", argv: (f) => ["render", "--mode", "basic", f] },
};

/**
 * Peak RSS (MB), wall time (s) and CPU time (user + system, s, every thread) of one built command under /usr/bin/time -v,
 * stdout to /dev/null. On a machine shared with other work the CPU time moves far less than the wall time.
 */
export function measureCommand(name, file) {
  const dir = benchTempDir("mem-out");
  const started = Date.now();
  const child = spawnSync("/usr/bin/time", ["-v", process.execPath, cli, ...runs[name].argv(file, dir)], {
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (Date.now() - started) / 1000;
  const stderr = child.stderr.toString();
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  const timeOf = (label) => Number(new RegExp(`${label} time \\(seconds\\): ([\\d.]+)`).exec(stderr)?.[1] ?? Number.NaN);
  return { rssMb: kb / 1024, seconds, cpuSeconds: timeOf("User") + timeOf("System"), mbPerS: statSync(file).size / 1e6 / seconds };
}

/** Prints one row per command: peak RSS and time at each size of its generated input. */
export function reportGeneratedMemory(sizes = [100, 1000], which = Object.keys(runs)) {
  if (!existsSync(cli)) return console.log(`  ${cli} is absent: npm run build first`);
  console.log(
    `\npeak RSS of the built CLI over generated streams (1 KB Claude answers, own ids), MB: ${sizes.map((s) => `${s} MB`).join(" / ")}`,
  );
  const files = new Map();
  for (const name of which) {
    const cells = sizes.map((size) => {
      const key = `${runs[name].input}-${size}`;
      if (!files.has(key)) files.set(key, generate(runs[name].input, size));
      const r = measureCommand(name, files.get(key));
      return `${r.rssMb.toFixed(0)} MB (${r.seconds.toFixed(1)} s, ${r.mbPerS.toFixed(0)} MB/s, ${r.cpuSeconds.toFixed(1)} s CPU)`;
    });
    console.log(`  ${name.padEnd(21)} ${cells.join(" / ")}`);
  }
}

/** A run log's events (agentstream NDJSON) of about `sizeMb` MB: 1 KB answers under their own ids, a tool call every tenth. */
function* runLogChunks(sizeMb) {
  let seq = 0;
  let written = 0;
  const event = (fields) => `${JSON.stringify({ v: 1, seq: seq++, sessionId: session, ...fields })}\n`;
  let batch = event({ type: "session.started", agent: "claude-code", model: "claude-sonnet-4-5" });
  for (let i = 0; written + batch.length < sizeMb * 1e6; i++) {
    const id = `msg_${i}`;
    batch += event({ type: "message.started", messageId: id, role: "assistant", kind: "text" });
    batch += event({ type: "message.completed", messageId: id, role: "assistant", kind: "text", text: `${i} ${answer}` });
    if (i % 10 === 9) {
      batch += event({ type: "tool.started", toolCallId: `t${i}`, name: "Bash", input: { command: `echo ${i}` } });
      batch += event({ type: "tool.completed", toolCallId: `t${i}`, name: "Bash", output: `${i}`, isError: false });
    }
    if (batch.length >= 1e6) {
      written += batch.length;
      yield batch;
      batch = "";
    }
  }
  yield `${batch}${event({ type: "session.completed", status: "success" })}`;
}

/** Peak RSS (VmHWM, MB) and CPU seconds of process `pid`, from /proc. */
function procUsage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return { cpu: (Number(stat[11]) + Number(stat[12])) / 100, peakMb: Number(hwm) / 1024 };
}

/** Requests `path` of the server with its token: the JSON body. */
function getJson(origin, token, path) {
  return new Promise((resolve, reject) => {
    request(new URL(path, origin), { headers: { Authorization: `Bearer ${token}` } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(JSON.parse(body)));
    })
      .on("error", reject)
      .end();
  });
}

/**
 * `serve` of a run log written while it is read: the log appended a megabyte at a time as fast as it goes, `viewers`
 * SSE viewers of its session reading to the end. Serve's peak RSS and CPU, and whether every viewer got every event.
 */
export async function measureServeFeed(sizeMb, viewers) {
  const dir = mkdtempSync(join(tmpdir(), "agentstream-bench-mem-serve-"));
  const log = join(dir, "r.events.ndjson");
  writeFileSync(join(dir, "r.raw"), "");
  const chunks = runLogChunks(sizeMb);
  const first = chunks.next().value;
  appendFileSync(log, first);
  let events = first.split("\n").length - 1;
  const child = spawn(process.execPath, [cli, "serve", dir], { stdio: ["ignore", "pipe", "ignore"] });
  const { origin, token } = await new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
      const found = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(text);
      if (found) resolve({ origin: found[1], token: found[2] });
    });
    child.on("exit", () => reject(new Error("agentstream serve exited")));
  });
  const [listed] = await getJson(origin, token, "/api/sessions");
  const started = performance.now();
  const counts = Array.from({ length: viewers }, () => 0);
  const requests = counts.map((_, v) =>
    request(new URL(`/api/sessions/${listed.id}/events`, origin), { headers: { Authorization: `Bearer ${token}` } }, (res) =>
      countEventFrames(res, () => counts[v]++),
    )
      .on("error", () => {})
      .end(),
  );
  for (const chunk of chunks) {
    appendFileSync(log, chunk);
    events += chunk.split("\n").length - 1;
    await new Promise((resolve) => setImmediate(resolve));
  }
  writeFileSync(join(dir, "r.summary.json"), "{}\n");
  const total = events;
  // Each viewer reads to the end (the feed's own closing events may add a few).
  for (let last = -1, still = 0; Math.min(...counts) < total && still < 100; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    still = Math.min(...counts) === last ? still + 1 : 0;
    last = Math.min(...counts);
  }
  const seconds = (performance.now() - started) / 1000;
  const usage = procUsage(child.pid);
  for (const r of requests) r.destroy();
  child.kill("SIGTERM");
  await new Promise((resolve) => child.on("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
  return { ...usage, seconds, mbPerS: sizeMb / seconds, complete: counts.filter((c) => c >= total).length };
}

/**
 * Calls `onEvent` for each event frame of an SSE response (`id:` then `data:`, no `event:` line): counted by their
 * `\nid: ` openings, across chunk boundaries, without splitting the text into frames (a viewer of a 1 GB feed must
 * keep up with the server, or it is dropped as a slow one).
 */
function countEventFrames(res, onEvent) {
  let carry = "";
  res.setEncoding("utf8");
  res.on("data", (chunk) => {
    const text = carry + chunk;
    for (let at = text.indexOf("\nid: "); at !== -1; at = text.indexOf("\nid: ", at + 5)) onEvent();
    carry = text.slice(-5);
  });
}

const natsServer = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "nats-server"].find(
  (path) => spawnSync(path, ["--version"], { stdio: "ignore" }).status === 0,
);

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const open = await new Promise((resolve) => {
      const socket = connectTcp(port, "127.0.0.1");
      socket.once("connect", () => resolve(socket.destroy() || true));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nats-server did not listen on 127.0.0.1:${port}`);
}

/** `publish` of `file` to a fresh nats-server on loopback, under /usr/bin/time -v: peak RSS, time, events published. */
export async function measurePublish(file) {
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), "agentstream-bench-mem-nats-"));
  const server = spawn(natsServer, ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", store], { stdio: "ignore" });
  try {
    await waitForPort(port);
    const started = Date.now();
    const child = spawnSync(
      "/usr/bin/time",
      ["-v", process.execPath, cli, "publish", `nats://127.0.0.1:${port}`, "--host", "mem", "--spool", benchTempDir("mem-spool"), file],
      { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 * 1024 * 1024 },
    );
    const seconds = (Date.now() - started) / 1000;
    const stderr = child.stderr.toString();
    const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
    const published = Number(/(\d[\d,]*) event\(s\) published/.exec(stderr)?.[1].replace(/,/g, "") ?? Number.NaN);
    return { rssMb: kb / 1024, seconds, mbPerS: statSync(file).size / 1e6 / seconds, published };
  } finally {
    server.kill("SIGKILL");
    rmSync(store, { recursive: true, force: true });
  }
}

/** The rows of `serve` (a live run log and its viewers) and `publish` (to a local nats-server), at each size. */
export async function reportFeeds(sizes, { serve = true, publish = true, viewers = 2 } = {}) {
  if (!existsSync(cli)) return console.log(`  ${cli} is absent: npm run build first`);
  console.log(`\npeak RSS of serve and publish (the built CLI), MB: ${sizes.map((s) => `${s} MB`).join(" / ")}`);
  if (serve) {
    const cells = [];
    for (const size of sizes) {
      const r = await measureServeFeed(size, viewers);
      cells.push(
        `${r.peakMb.toFixed(0)} MB (${r.seconds.toFixed(1)} s, ${r.mbPerS.toFixed(0)} MB/s, CPU ${r.cpu.toFixed(1)} s, ${r.complete}/${viewers} viewers got every event)`,
      );
    }
    console.log(`  ${`serve, ${viewers} viewers`.padEnd(16)} ${cells.join(" / ")}`);
  }
  if (publish) {
    if (natsServer === undefined) return console.log("  publish: nats-server not installed (scripts/install-test-deps.sh): not measured");
    const cells = [];
    for (const size of sizes) {
      const r = await measurePublish(generate("claude", size));
      cells.push(
        `${r.rssMb.toFixed(0)} MB (${r.seconds.toFixed(1)} s, ${r.mbPerS.toFixed(0)} MB/s, ${r.published.toLocaleString("en-US")} events, ${Math.round(r.published / r.seconds).toLocaleString("en-US")}/s)`,
      );
    }
    console.log(`  ${"publish".padEnd(16)} ${cells.join(" / ")}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
  const sizes = opt("sizes", "100").split(",").map(Number);
  const feeds = args.includes("--feeds") || args.includes("--serve") || args.includes("--publish");
  if (!feeds || args.includes("--commands")) reportGeneratedMemory(sizes, opt("commands", Object.keys(runs).join(",")).split(","));
  if (feeds)
    await reportFeeds(sizes, {
      serve: args.includes("--feeds") || args.includes("--serve"),
      publish: args.includes("--feeds") || args.includes("--publish"),
      viewers: Number(opt("viewers", "2")),
    });
  if (args.includes("--captures")) reportMemory(sizes, ["summary", "convert"]);
}
