// `npm run bench:fleet` (or, after npm run build: node bench/fleet.mjs [--processes 4] [--agents 25]
// [--events 10000] [--spool-events 200000] [--publish-events 1000000] [--only latency]): the NATS fan-in against a real nats-server on loopback
// (a temporary JetStream store). Not a test: it asserts nothing but says what it lost, if anything.
//   load      events/s published by N processes × A concurrent fake agents × E events each
//   consume   events/s read back by one reader (ordered consumer, from the start)
//   latency   an agent's line written to `agentstream publish` (stdin) → the event at a tail reader, p50/p99
//   spool     events/s into the spool while the server is down, and out of it once it is back
//   publish   `agentstream publish` end to end (the built binary reading Claude stream-json files): 1 session × 1M
//             events and 1,000 sessions × 100 events, events/s and peak RSS (--publish-events, --publish-sessions)
//   discover  `serve --nats`: S sessions × E events stored; how long until the list has every session with its
//             facts (last per subject + opening events), beside reading every event once (the design not taken)
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { createServer, connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createPublisher } from "../dist/fleet/publisher.js";
import { connectNats } from "../dist/fleet/connection.js";
import { readFleet } from "../dist/fleet/reader.js";
import { ensureStream } from "../dist/fleet/stream.js";
import { createFleetSessions } from "../dist/fleet/fleet-sessions.js";
import { answerEvent, sessionCompleted, sessionStarted } from "./fleet-events.mjs";
import { benchTempDir } from "./temp.mjs";

const root = join(fileURLToPath(import.meta.url), "../..");
const { values } = parseArgs({
  options: {
    processes: { type: "string", default: "4" },
    agents: { type: "string", default: "25" },
    events: { type: "string", default: "10000" },
    "spool-events": { type: "string", default: "200000" },
    "latency-lines": { type: "string", default: "1000" },
    "discover-sessions": { type: "string", default: "2000" },
    "publish-events": { type: "string", default: "1000000" },
    "publish-sessions": { type: "string", default: "1000" },
    "publish-session-events": { type: "string", default: "100" },
    "discover-events": { type: "string", default: "50" },
    only: { type: "string", default: "" },
  },
});
const processes = Number(values.processes);
const agents = Number(values.agents);
const events = Number(values.events);

const binary = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "nats-server"].find(
  (path) => spawnSync(path, ["--version"], { stdio: "ignore" }).status === 0,
);
if (binary === undefined) {
  console.log("nats-server not installed (scripts/install-test-deps.sh): nothing measured");
  process.exit(0);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const rate = (n, ms) => `${Math.round((n / ms) * 1000).toLocaleString("en")} events/s`;

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port) {
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connectTcp(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await sleep(25);
  }
}

const port = await freePort();
const url = `nats://127.0.0.1:${port}`;
const store = mkdtempSync(join(tmpdir(), "agentstream-bench-nats-"));
const server = spawn(binary, ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", store], { stdio: "ignore" });
await waitForPort(port);
const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim();
console.log(`${version}, node ${process.version}, loopback, JetStream file store; figures under whatever load the machine has\n`);

const admin = await connectNats({ servers: url });
await ensureStream(admin, { name: "AGENTSTREAM" }); // as the first publisher would: readers may come first
await admin.close();

try {
  for (const [name, part] of Object.entries({ load, consume, latency, spool, publish, discover }))
    if (name.includes(values.only)) await part();
} finally {
  server.kill("SIGKILL");
  rmSync(store, { recursive: true, force: true });
}

async function load() {
  const spoolDir = benchTempDir("spool");
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: processes }, (_, p) => {
      const child = spawn(
        process.execPath,
        [
          join(root, "bench/fleet-load-worker.mjs"),
          url,
          "--host",
          `bench-${p}`,
          "--agents",
          String(agents),
          "--events",
          String(events),
          "--spool",
          spoolDir,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      return new Promise((resolve) => child.on("close", () => resolve(JSON.parse(out))));
    }),
  );
  const ms = performance.now() - started;
  const total = processes * agents * events;
  const stored = results.reduce((sum, r) => sum + r.report.published, 0);
  const lost = results.reduce((sum, r) => sum + r.report.dropped + r.report.waiting, 0);
  const duplicates = results.reduce((sum, r) => sum + r.report.duplicates, 0);
  const cpu = results.map((r) => (r.cpuMs / 1000).toFixed(1)).join(", ");
  console.log(
    `load     ${processes} processes × ${agents} agents × ${events} events = ${total.toLocaleString("en")} events in ${(ms / 1000).toFixed(1)} s`,
  );
  console.log(
    `         published ${rate(total, ms)}; stored ${stored.toLocaleString("en")}, duplicates ${duplicates}, lost ${lost}; CPU per process ${cpu} s`,
  );
}

async function consume() {
  const started = performance.now();
  let n = 0;
  const sessions = new Map();
  let outOfOrder = 0;
  for await (const { event, address } of readFleet({
    connection: { servers: url },
    stream: "AGENTSTREAM",
    filter: {},
    since: { kind: "all" },
    follow: false,
  })) {
    n++;
    const last = sessions.get(address.session) ?? -1;
    if (event.seq !== last + 1) outOfOrder++;
    sessions.set(address.session, event.seq);
  }
  const ms = performance.now() - started;
  console.log(
    `consume  ${n.toLocaleString("en")} events by one reader in ${(ms / 1000).toFixed(1)} s: ${rate(n, ms)}; ${sessions.size} sessions, ${outOfOrder} out of order or missing`,
  );
}

async function latency() {
  const lines = Number(values["latency-lines"]);
  const abort = new AbortController();
  const seen = [];
  const reading = (async () => {
    for await (const { event } of readFleet({
      connection: { servers: url },
      stream: "AGENTSTREAM",
      filter: { host: "latency" },
      since: { kind: "new" },
      follow: true,
      signal: abort.signal,
    })) {
      if (event.type !== "message.completed") continue;
      const sent = Number(/^t=(\d+(?:\.\d+)?)/.exec(event.text)?.[1]);
      seen.push(performance.timeOrigin + performance.now() - sent);
      if (seen.length === lines) abort.abort();
    }
  })();
  await sleep(500); // the reader's consumer exists before the first line
  const spoolDir = benchTempDir("spool");
  const publisher = spawn(
    process.execPath,
    [join(root, "dist/cli/bin.js"), "publish", url, "--host", "latency", "--spool", spoolDir, "-q"],
    {
      stdio: ["pipe", "ignore", "inherit"],
    },
  );
  const write = (record) => publisher.stdin.write(`${JSON.stringify(record)}\n`);
  const session_id = "latency-probe";
  write({ type: "system", subtype: "init", session_id, model: "fake", tools: [] });
  await sleep(1500); // connected, the stream found: what follows is the steady state, not the start
  for (let i = 1; i <= lines; i++) {
    const t = performance.timeOrigin + performance.now();
    write({
      type: "assistant",
      session_id,
      message: { id: `m${i}`, role: "assistant", content: [{ type: "text", text: `t=${t} line ${i}` }] },
    });
    await sleep(5);
  }
  await Promise.race([reading, sleep(30_000)]);
  abort.abort();
  publisher.stdin.end();
  await new Promise((resolve) => publisher.on("close", resolve));
  console.log(
    `latency  agent line → publish (stdin) → NATS → tail reader, ${seen.length} of ${lines} lines at 200/s: p50 ${percentile(seen, 50).toFixed(1)} ms, p99 ${percentile(seen, 99).toFixed(1)} ms`,
  );
}

async function spool() {
  const count = Number(values["spool-events"]);
  const spoolDir = benchTempDir("spool");
  const deadPort = await freePort();
  const down = createPublisher({
    connection: { servers: `nats://127.0.0.1:${deadPort}` },
    stream: { name: "AGENTSTREAM" },
    host: "spool",
    spoolDir,
    spoolMaxBytes: 4 * 2 ** 30,
  });
  let started = performance.now();
  for (let seq = 0; seq < count; seq++) {
    down.event(answerEvent("spool-probe", seq, `spooled ${seq}`));
    if (seq % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  const spooled = await down.close(0);
  const inMs = performance.now() - started;
  started = performance.now();
  const up = createPublisher({
    connection: { servers: url },
    stream: { name: "AGENTSTREAM" },
    host: "spool",
    spoolDir,
    spoolMaxBytes: 4 * 2 ** 30,
  });
  const drained = await up.close(600_000);
  const outMs = performance.now() - started;
  console.log(
    `spool    into the spool (server down): ${rate(spooled.spooled, inMs)} (${spooled.waiting.toLocaleString("en")} waiting, ${spooled.dropped} dropped)`,
  );
  console.log(
    `         out of it once the server is back (adopted by the next publisher): ${rate(drained.published + drained.duplicates, outMs)}`,
  );
}

/** A Claude stream-json session of about `events` events (the init, then a message.started and .completed per answer). */
async function writeClaudeSession(path, sessionId, events) {
  const out = createWriteStream(path);
  const write = (text) => (out.write(text) ? undefined : new Promise((resolve) => out.once("drain", resolve)));
  await write(`${JSON.stringify({ type: "system", subtype: "init", session_id: sessionId, model: "m", tools: [] })}\n`);
  let lines = [];
  for (let i = 1; i <= (events - 1) / 2; i++) {
    lines.push(
      JSON.stringify({
        type: "assistant",
        session_id: sessionId,
        message: { id: `msg_${i}`, role: "assistant", content: [{ type: "text", text: `answer ${i}` }] },
      }),
    );
    if (lines.length === 5000) {
      await write(`${lines.join("\n")}\n`);
      lines = [];
    }
  }
  if (lines.length > 0) await write(`${lines.join("\n")}\n`);
  await new Promise((resolve) => out.end(resolve));
}

/** `agentstream publish` of `files` as a user runs it: events/s from its start to its exit, its peak RSS. */
async function publishFiles(host, files) {
  const spoolDir = benchTempDir("spool");
  const timeBin = ["/usr/bin/time"].find((path) => spawnSync(path, ["-f", "%M", "true"], { stdio: "ignore" }).status === 0);
  const command = [
    process.execPath,
    join(root, "dist/cli/bin.js"),
    "publish",
    url,
    "--host",
    host,
    "--spool",
    spoolDir,
    "--flush-timeout",
    "600s",
    ...files,
  ];
  const started = performance.now();
  const child = spawn(timeBin ?? command[0], timeBin === undefined ? command.slice(1) : ["-f", "peak %M KB", ...command], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  await new Promise((resolve) => child.on("close", resolve));
  const ms = performance.now() - started;
  const published = Number(/(\d+) event\(s\) published/.exec(stderr)?.[1] ?? 0);
  const peak = /peak (\d+) KB/.exec(stderr)?.[1];
  const spooled = /(\d+) went through the spool/.exec(stderr)?.[1] ?? "0";
  const waiting = /(\d+) still waiting/.exec(stderr)?.[1] ?? "0";
  return { ms, published, peakMb: peak === undefined ? "?" : Math.round(Number(peak) / 1024), spooled, waiting };
}

async function publish() {
  const dir = benchTempDir("publish-input");
  const events = Number(values["publish-events"]);
  const one = join(dir, "one.jsonl");
  await writeClaudeSession(one, "bench-one-session", events);
  const single = await publishFiles("publish-one", [one]);
  console.log(
    `publish  1 session × ${events.toLocaleString("en")} events (agentstream publish, end to end): ${single.published.toLocaleString("en")} published in ${(single.ms / 1000).toFixed(1)} s, ${rate(single.published, single.ms)}, peak RSS ${single.peakMb} MB; through the spool ${single.spooled}, left waiting ${single.waiting}`,
  );
  const sessions = Number(values["publish-sessions"]);
  const perSession = Number(values["publish-session-events"]);
  const files = [];
  for (let s = 0; s < sessions; s++) {
    const file = join(dir, `s${s}.jsonl`);
    await writeClaudeSession(file, `bench-session-${s}`, perSession);
    files.push(file);
  }
  const many = await publishFiles("publish-many", files);
  console.log(
    `         ${sessions.toLocaleString("en")} sessions × ${perSession} events (one publish, the files as arguments): ${many.published.toLocaleString("en")} published in ${(many.ms / 1000).toFixed(1)} s, ${rate(many.published, many.ms)}, peak RSS ${many.peakMb} MB; through the spool ${many.spooled}, left waiting ${many.waiting}`,
  );
}

async function discover() {
  const sessions = Number(values["discover-sessions"]);
  const perSession = Number(values["discover-events"]);
  const publisher = createPublisher({
    connection: { servers: url },
    stream: { name: "AGENTSTREAM" },
    host: "discover",
    spoolDir: benchTempDir("spool"),
    spoolMaxBytes: 2 ** 30,
  });
  for (let s = 0; s < sessions; s++) {
    const sessionId = `discover-${s}`;
    publisher.event(sessionStarted(sessionId, { cwd: `/work/${s}`, model: "m" }));
    for (let seq = 1; seq < perSession - 1; seq++) publisher.event(answerEvent(sessionId, seq, `answer ${seq} `.repeat(20)));
    publisher.event(sessionCompleted(sessionId, perSession - 1));
    if (s % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
  }
  const report = await publisher.close(600_000);
  let started = performance.now();
  const cpuBefore = process.cpuUsage();
  const fleet = createFleetSessions({
    connection: { servers: url },
    stream: "AGENTSTREAM",
    filter: { host: "discover" },
    since: undefined,
    redact: true,
  });
  let listed = 0;
  let withFacts = 0;
  let allListedMs = 0;
  while (withFacts < sessions) {
    await sleep(50);
    const list = fleet.list();
    listed = list.length;
    if (listed === sessions && allListedMs === 0) allListedMs = performance.now() - started;
    withFacts = list.filter((info) => info.cwd !== null && info.status === "success").length;
    if (performance.now() - started > 600_000) break;
  }
  const listMs = performance.now() - started;
  const listCpu = process.cpuUsage(cpuBefore);
  fleet.close();
  started = performance.now();
  const readCpuBefore = process.cpuUsage();
  let read = 0;
  for await (const _ of readFleet({
    connection: { servers: url },
    stream: "AGENTSTREAM",
    filter: { host: "discover" },
    since: { kind: "all" },
    follow: false,
  }))
    read++;
  const readMs = performance.now() - started;
  const readCpu = process.cpuUsage(readCpuBefore);
  const cpu = (usage) => ((usage.user + usage.system) / 1e6).toFixed(1);
  console.log(
    `discover ${sessions.toLocaleString("en")} sessions × ${perSession} events (${report.published.toLocaleString("en")} stored): every one listed in ${(allListedMs / 1000).toFixed(1)} s, with its facts (${withFacts} of ${listed}) in ${(listMs / 1000).toFixed(1)} s, ${cpu(listCpu)} s CPU`,
  );
  console.log(
    `         every event read once instead (the design not taken): ${read.toLocaleString("en")} events in ${(readMs / 1000).toFixed(1)} s, ${cpu(readCpu)} s CPU (${(readMs / listMs).toFixed(1)}× the time)`,
  );
}
