// The `run` section of `npm run bench` (also alone: node bench/run-agent.mjs <corpus>, after
// npm run build): runAgent() and `agentstream run` around fake agents. Each figure is measured in
// a fresh child process. Not a test: it asserts nothing.
//   latency   agent line → our event, p50/p99, beside the bare pipe (spawn + JSON.parse) as a floor
//   cpu       CPU of `agentstream run --to agentstream --log` beside the agent alone (`cat` of the corpus)
//   flood     log throughput when the agent floods stdout; raw log == agent stdout by SHA-256
//   rss       peak RSS while the agent writes one 64 MiB (then 256 MiB) line with no newline
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

const here = fileURLToPath(import.meta.url);
const root = join(here, "../..");
const bin = join(root, "dist/cli/bin.js");
const fakeAgents = join(root, "test/fixtures/fake-agents");

/** An agent that writes 2000 lines, one every 2 ms, each carrying the time it was written. */
const TICKER = `let i=0;const t=setInterval(()=>{process.stdout.write(JSON.stringify({type:"probe",i:i++,t:performance.timeOrigin+performance.now(),text:"hello world"})+"\\n");if(i===2000){clearInterval(t)}},2)`;

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const now = () => performance.timeOrigin + performance.now();
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

async function child(mode, arg) {
  const { runAgent } = await import("../dist/run/index.js");
  if (mode === "latency") {
    const run = runAgent(process.execPath, ["-e", TICKER], { dialect: "json", heartbeatMs: 0 });
    const ms = [];
    for await (const event of run.events) if (event.type === "unknown") ms.push(now() - event.raw.t);
    await run.result;
    return { ms };
  }
  if (mode === "latency-floor") {
    const agent = spawn(process.execPath, ["-e", TICKER], { stdio: ["ignore", "pipe", "inherit"] });
    const ms = [];
    let rest = "";
    agent.stdout.on("data", (chunk) => {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop();
      for (const line of lines) ms.push(now() - JSON.parse(line).t);
    });
    await new Promise((resolve) => agent.on("close", resolve));
    return { ms };
  }
  if (mode === "flood" || mode === "flood-nolog") {
    const dir = mkdtempSync(join(tmpdir(), "agentstream-bench-run-"));
    const threads = await sampleThreadCpu();
    const started = performance.now();
    // As `run --to agentstream` reads: long tool outputs held as bytes (a build without held strings reads
    // them in full), and the consumer lets each event's go once it has it (as the record sink does once written).
    const held = await import("../dist/framing/held-strings.js").catch(() => undefined);
    const agent = await import("../dist/run/run-agent.js");
    const strings = held === undefined ? undefined : new held.HeldStrings();
    const logs = mode === "flood" ? { log: dir, runId: "flood" } : {};
    const options = { dialect: "claude", heartbeatMs: 0, ...logs };
    const run =
      agent.runAgentHolding === undefined ? runAgent("cat", [arg], options) : agent.runAgentHolding("cat", [arg], options, strings);
    let events = 0;
    for await (const event of run.events) {
      events++;
      if (strings !== undefined) held.releaseHeld(event, strings);
    }
    const result = await run.result;
    const seconds = (performance.now() - started) / 1000;
    const cpu = await threads.stop();
    const same = mode === "flood" ? sha256(readFileSync(join(dir, "flood.raw"))) === sha256(readFileSync(arg)) : undefined;
    rmSync(dir, { recursive: true, force: true });
    // On a machine shared with other work, wall time says more about the neighbours than about us:
    // the busiest thread's CPU time is what bounds the throughput on two free cores.
    return {
      mbps: result.stdoutBytes / 1e6 / seconds,
      events,
      same,
      bytes: result.stdoutBytes,
      ...cpu,
      cpuMbps: result.stdoutBytes / 1e6 / cpu.busiestThreadS,
      // Two cores cannot run more than two threads' worth of CPU at once either.
      twoCoreMbps: result.stdoutBytes / 1e6 / Math.max(cpu.busiestThreadS, cpu.allThreadsS / 2),
    };
  }
  if (mode === "rss") {
    const run = runAgent(process.execPath, [join(fakeAgents, "no-newline-64mib.mjs"), `--mib=${arg}`], { dialect: "json", heartbeatMs: 0 });
    for await (const _ of run.events);
    const result = await run.result;
    return { rssMb: process.resourceUsage().maxRSS / 1024, bytes: result.stdoutBytes };
  }
  throw new Error(`unknown mode ${mode}`);
}

/**
 * CPU seconds of each of our threads (Linux /proc; utime+stime in clock ticks), sampled every 20 ms
 * so a worker that ends before the run does is counted too. The sampling runs on a thread of its
 * own, left out of the figures: on the main thread its reads of /proc cost about 25 ms of the main
 * thread's CPU in a 64 MB flood (4 %), counted as ours before. Returns the main thread's, the
 * busiest other thread's (the log worker's), the busiest thread's and all threads' total.
 */
async function sampleThreadCpu() {
  const sampler = new Worker(
    `const { parentPort } = require("node:worker_threads");
     const { readdirSync, readFileSync, readlinkSync } = require("node:fs");
     const own = readlinkSync("/proc/thread-self").split("/").pop();
     const ticks = new Map();
     const read = () => {
       let tids = [];
       try { tids = readdirSync("/proc/self/task"); } catch { return; }
       for (const tid of tids) {
         if (tid === own) continue;
         try {
           const fields = readFileSync("/proc/self/task/" + tid + "/stat", "utf8").split(") ")[1].split(" ");
           ticks.set(tid, Number(fields[11]) + Number(fields[12]));
         } catch {} // the thread ended between the listing and the read
       }
     };
     read();
     const before = new Map(ticks);
     const timer = setInterval(read, 20);
     parentPort.postMessage("started");
     parentPort.on("message", () => {
       clearInterval(timer);
       read();
       parentPort.postMessage([...ticks].map(([tid, t]) => [tid, (t - (before.get(tid) ?? 0)) / 100]));
     });`,
    { eval: true },
  );
  const answer = () => new Promise((resolve) => sampler.once("message", resolve));
  await answer();
  return {
    async stop() {
      const asked = answer();
      sampler.postMessage("stop");
      const used = await asked;
      await sampler.terminate();
      const main = used.find(([tid]) => tid === String(process.pid))?.[1] ?? NaN;
      return {
        mainThreadS: main,
        // The log worker, when there is one (else a GC or libuv thread).
        otherThreadS: Math.max(0, ...used.filter(([tid]) => tid !== String(process.pid)).map(([, s]) => s)),
        busiestThreadS: Math.max(...used.map(([, s]) => s)),
        allThreadsS: used.reduce((sum, [, s]) => sum + s, 0),
      };
    },
  };
}

function measure(mode, arg = "") {
  return JSON.parse(execFileSync(process.execPath, [here, "child", mode, arg], { encoding: "utf8", maxBuffer: 1 << 26 }));
}

/** User+system CPU seconds of a shell command line and its children, from /usr/bin/time. */
function cpuOf(commandLine) {
  try {
    execFileSync("bash", ["-c", `/usr/bin/time -o /tmp/agentstream-bench-time -f "%U %S" ${commandLine} > /dev/null 2>&1`]);
    const [user, system] = readFileSync("/tmp/agentstream-bench-time", "utf8").trim().split(/\s+/).map(Number);
    return user + system;
  } catch {
    return NaN;
  }
}

export async function benchRun(corpus) {
  const bytes = readFileSync(corpus).length;
  console.log(`\nrun (agentstream run / runAgent, fake agents):`);
  const ours = measure("latency").ms;
  const floor = measure("latency-floor").ms;
  const fmt = (ms) => `${ms.toFixed(3)} ms`;
  console.log(
    `  latency, agent line → event (2000 lines 2 ms apart): p50 ${fmt(percentile(ours, 50))}, p99 ${fmt(percentile(ours, 99))}; bare pipe + JSON.parse p50 ${fmt(percentile(floor, 50))}, p99 ${fmt(percentile(floor, 99))}; added p50 ${fmt(percentile(ours, 50) - percentile(floor, 50))}, p99 ${fmt(percentile(ours, 99) - percentile(floor, 99))} (target: p99 < 1 ms)`,
  );
  const dir = mkdtempSync(join(tmpdir(), "agentstream-bench-cpu-"));
  const alone = cpuOf(`cat ${JSON.stringify(corpus)}`);
  const wrapped = cpuOf(
    `node ${JSON.stringify(bin)} run --from claude --to agentstream --heartbeat 0 --log ${JSON.stringify(dir)} -- cat ${JSON.stringify(corpus)}`,
  );
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `  cpu over ${(bytes / 1e6).toFixed(0)} MB: the agent alone (cat) ${alone.toFixed(2)} s; agentstream run --to agentstream --log around it ${wrapped.toFixed(2)} s (${((wrapped / (bytes / 1e6)) * 1000).toFixed(1)} ms of CPU per MB)`,
  );
  const flood = measure("flood", corpus);
  const bare = measure("flood-nolog", corpus);
  console.log(
    `  log throughput, agent flooding stdout (cat of the corpus, ${flood.events.toLocaleString("en")} events): ${flood.mbps.toFixed(0)} MB/s with the raw, events and oneshot logs; ${bare.mbps.toFixed(0)} MB/s without logs; raw log == agent stdout (sha256): ${flood.same ? "yes" : "NO"} (target: >= 100 MB/s, no byte lost)`,
  );
  const cpu = (r) =>
    `main thread ${r.mainThreadS.toFixed(2)} s, busiest other thread ${r.otherThreadS.toFixed(2)} s, busiest thread ${r.busiestThreadS.toFixed(2)} s, all threads ${r.allThreadsS.toFixed(2)} s → ${r.cpuMbps.toFixed(0)} MB/s (two cores: ${r.twoCoreMbps.toFixed(0)} MB/s)`;
  console.log(
    `    CPU-bound throughput (bytes / busiest thread's CPU time; on two free cores, bytes / the larger of that and half of all threads' CPU): with logs ${cpu(flood)}; without logs ${cpu(bare)}`,
  );
  const small = measure("rss", "64");
  const big = measure("rss", "256");
  console.log(
    `  peak RSS, one line with no newline: 64 MiB → ${small.rssMb.toFixed(0)} MB, 256 MiB → ${big.rssMb.toFixed(0)} MB (flat = the line is not held)`,
  );
}

if (process.argv[2] === "child") {
  process.stdout.write(JSON.stringify(await child(process.argv[3], process.argv[4])));
} else if (process.argv[1] === here) {
  const corpus = process.argv[2];
  if (corpus === undefined) {
    console.error("usage: node bench/run-agent.mjs <corpus.jsonl> (npm run bench makes one)");
    process.exit(2);
  }
  await benchRun(corpus);
}
