// One benchmark method, run in a fresh child process: `node bench/method.mjs <method> <file> <result.json> [repeat]`.
// Writes {events, ms, cpuMs, rssMb} to result.json. Output of the method itself goes to /dev/null.
import { createReadStream, createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [method, file, resultPath, repeatArg] = process.argv.slice(2);
const repeat = Number(repeatArg ?? 1);
const devnull = () => createWriteStream("/dev/null");

/** Reads `file` `repeat` times as one stream of 64 KiB chunks. */
async function* chunks() {
  for (let i = 0; i < repeat; i++) {
    for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) yield chunk;
  }
}

function peakRssMb() {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function floor({ stringify = false } = {}) {
  let events = 0;
  let parts = [];
  let partsLength = 0;
  const out = stringify ? devnull() : undefined;
  for await (const chunk of chunks()) {
    let from = 0;
    const batch = stringify ? [] : undefined;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      let line;
      if (partsLength > 0) {
        parts.push(chunk.subarray(from, nl));
        line = Buffer.concat(parts).utf8Slice();
        parts = [];
        partsLength = 0;
      } else line = chunk.utf8Slice(from, nl);
      from = nl + 1;
      if (line.length === 0) continue;
      const value = JSON.parse(line);
      events++;
      if (batch) batch.push(JSON.stringify(value), "\n");
    }
    if (from < chunk.length) {
      parts.push(chunk.subarray(from));
      partsLength += chunk.length - from;
    }
    if (batch && !out.write(batch.join(""))) await new Promise((r) => out.once("drain", r));
  }
  if (out) await new Promise((r) => out.end(r));
  return events;
}

async function viaStream(transform) {
  const { Readable } = await import("node:stream");
  let events = 0;
  await new Promise((resolve, reject) => {
    Readable.from(chunks())
      .pipe(transform)
      .on("data", () => events++)
      .on("end", resolve)
      .on("error", reject);
  });
  return events;
}

async function readlineParse() {
  const { Readable } = await import("node:stream");
  let events = 0;
  for await (const line of createInterface({ input: Readable.from(chunks()), crlfDelay: Infinity })) {
    if (line.length === 0) continue;
    JSON.parse(line);
    events++;
  }
  return events;
}

async function ours(kind) {
  if (kind === "read") {
    // Only this row imports the library: the CLI rows load what `agentstream` loads, nothing more.
    const { readEvents } = await import("../dist/index.js");
    let events = 0;
    for await (const _ of readEvents(chunks())) events++;
    return events;
  }
  // The CLI as `agentstream` runs a command: the bundle's list of commands (scripts/build-cli.mjs), which requires the
  // command's own file.
  const { run } = await import("../dist/cli/bundle/run.cjs");
  const out = devnull();
  // As processIo's stdout: text or bytes (a batch encoded into one buffer), backpressure by promise.
  const write = (data) => {
    if (!out.write(data)) return new Promise((r) => out.once("drain", r));
  };
  const stdout = { isTTY: false, write, writeBytes: write };
  const io = {
    stdin: Object.assign(chunks(), { isTTY: false }),
    stdout,
    stderr: { isTTY: false, write() {} },
    env: {},
    openFile: () => chunks(),
    fileSize: () => undefined,
  };
  const [command, ...args] = kind.split(" ");
  const code = await run([command, ...args, "-"], io);
  await new Promise((r) => out.end(r));
  if (code !== 0) throw new Error(`${kind} exited ${code}`);
  return undefined;
}

const methods = {
  floor: () => floor(),
  "floor+stringify+write": () => floor({ stringify: true }),
  "split2+JSON.parse": async () => viaStream((await import("split2")).default(JSON.parse)),
  ndjson: async () => viaStream((await import("ndjson")).default.parse()),
  "readline+JSON.parse": readlineParse,
  "ours: readEvents": () => ours("read"),
  "ours: convert --to agentstream": () => ours("convert --to agentstream"),
  "ours: summary": () => ours("summary --json"),
};
// Writers and renderer rows: `ours: convert --to <format>`, `ours: render --mode <mode>`.
const match = /^ours: (convert --to \S+|render --mode \S+)$/.exec(method);
const fn = methods[method] ?? (match ? () => ours(match[1]) : undefined);
if (!fn) throw new Error(`unknown method ${method}`);
const start = performance.now();
const cpuStart = process.cpuUsage();
const events = await fn();
const ms = performance.now() - start;
// CPU time (all threads of this process: the main one, GC, I/O): on a shared, loaded machine it
// moves much less than wall time with the neighbours' load.
const cpu = process.cpuUsage(cpuStart);
writeFileSync(resultPath, JSON.stringify({ events, ms, cpuMs: (cpu.user + cpu.system) / 1000, rssMb: peakRssMb() }));
