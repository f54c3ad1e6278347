// The `serve` section of `npm run bench` (also alone: node bench/serve.mjs, after npm run build).
// Not a test: it asserts nothing. Each figure comes from the built CLI in a child process.
//   latency   agent line → SSE event received (a Node client) and → DOM updated (chromium, when
//             installed), through `agentstream run --serve`, p50/p99
//   viewers   `agentstream serve` following a run log appended at a steady rate, with 1 and with 50
//             viewers of that one session (plus 10 stalled ones): server CPU and peak RSS
//   many      200 viewers of one run log at 1,000 events/s, a 2 MB burst with 50 and 200 viewers, a
//             50 MB burst with a stalled viewer: `GET /api/sessions` p50/p99/max meanwhile, server CPU
//             and peak RSS, every event once to every viewer, descriptors of the log, SIGTERM → exit
//             (the viewers in their own process: bench/serve-viewers-worker.mjs)
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { onSseFrames } from "./sse-frames.mjs";

const root = join(fileURLToPath(import.meta.url), "../..");
// AGENTSTREAM_BIN: another build to compare (a checkout of the commit before a change).
const bin = process.env.AGENTSTREAM_BIN ?? join(root, "dist/cli/bin.js");
const now = () => performance.timeOrigin + performance.now();
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** An agent that writes `n` lines, one every `gap` ms, each carrying the time it was written. */
const ticker = (n, gap) =>
  `let i=0;const t=setInterval(()=>{process.stdout.write(JSON.stringify({type:"probe",i:i++,t:performance.timeOrigin+performance.now()})+"\\n");if(i===${n}){clearInterval(t)}},${gap})`;

/** Starts the CLI and resolves with the URL it prints (stdout for serve, stderr for run --serve). */
function startCli(args, stream) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const url = new Promise((resolve, reject) => {
    let text = "";
    child[stream].on("data", (chunk) => {
      text += chunk;
      const found = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(text);
      if (found) resolve({ origin: found[1], token: found[2], url: found[0] });
    });
    child.on("exit", () => reject(new Error(`agentstream ${args[0]} exited`)));
  });
  return { child, url };
}

/** A minimal SSE reader: calls onData(data) for each event frame; `pause` leaves the socket unread. */
function sse(origin, token, path, onData, { pause = false } = {}) {
  const req = request(new URL(path, origin), { headers: { Authorization: `Bearer ${token}` } }, (res) => {
    if (pause) return res.pause();
    onSseFrames(res, (frame) => {
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data !== undefined && !/^event: /m.test(frame)) onData(data);
    });
  });
  req.on("error", () => {});
  req.end();
  return req;
}

async function sessions(origin, token) {
  return new Promise((resolve) => {
    request(new URL("/api/sessions", origin), { headers: { Authorization: `Bearer ${token}` } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(JSON.parse(body)));
    }).end();
  });
}

async function latencySse() {
  const { child, url } = startCli(
    ["run", "--serve", "--from", "json", "--mode", "none", "--", process.execPath, "-e", ticker(400, 20)],
    "stderr",
  );
  const { origin, token } = await url;
  const [session] = await sessions(origin, token);
  const ms = [];
  sse(origin, token, `/api/sessions/${session.id}/events`, (data) => {
    const event = JSON.parse(data);
    if (event.type === "unknown" && typeof event.raw?.t === "number") ms.push(now() - event.raw.t);
  });
  await new Promise((r) => child.on("exit", r));
  return ms.slice(20); // the first lines were written before we connected: not a latency
}

async function latencyDom() {
  let chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch {
    return undefined;
  }
  if (!existsSync("/usr/bin/chromium")) return undefined;
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage();
  const { child, url } = startCli(
    ["run", "--serve", "--from", "json", "--mode", "none", "--", process.execPath, "-e", ticker(400, 20)],
    "stderr",
  );
  await page.goto((await url).url);
  await page.evaluate(() => {
    window.__ms = [];
    new MutationObserver((records) => {
      const at = performance.timeOrigin + performance.now();
      for (const record of records)
        for (const node of record.addedNodes) {
          const t = /"t": ?([\d.]+)/.exec(node.textContent ?? "")?.[1];
          if (t !== undefined && node instanceof HTMLElement && node.dataset.seq !== undefined) window.__ms.push(at - Number(t));
        }
    }).observe(document.body, { childList: true, subtree: true });
  });
  await new Promise((r) => child.on("exit", r));
  const ms = await page.evaluate(() => window.__ms);
  await browser.close();
  return ms.slice(20);
}

/** CPU seconds (user + system) and peak RSS (MB) of a process, from /proc. */
function usage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return { cpu: (Number(stat[11]) + Number(stat[12])) / 100, peakMb: Number(hwm) / 1024 };
}

/** `serve` follows a run log appended with `lines` events over ~`seconds`; `viewers` read it live, `stalled` never read. */
async function viewers(count, stalled, lines = 4000, seconds = 8) {
  const dir = mkdtempSync(join(tmpdir(), "agentstream-bench-serve-"));
  writeFileSync(join(dir, "r.raw"), "");
  writeFileSync(join(dir, "r.events.ndjson"), "");
  const line = (i) =>
    `${JSON.stringify({ v: 1, seq: i, type: "message.delta", messageId: `m${Math.floor(i / 50)}`, role: "assistant", kind: "text", text: `word ${i} `.repeat(20) })}\n`;
  appendFileSync(join(dir, "r.events.ndjson"), line(0));
  const { child, url } = startCli(["serve", dir], "stdout");
  const { origin, token } = await url;
  const [session] = await sessions(origin, token);
  const before = usage(child.pid);
  let received = 0;
  const clients = [];
  for (let i = 0; i < count; i++) clients.push(sse(origin, token, `/api/sessions/${session.id}/events`, () => received++));
  for (let i = 0; i < stalled; i++) clients.push(sse(origin, token, `/api/sessions/${session.id}/events`, () => {}, { pause: true }));
  const batch = 20;
  for (let i = 1; i < lines; i += batch) {
    appendFileSync(join(dir, "r.events.ndjson"), Array.from({ length: Math.min(batch, lines - i) }, (_, k) => line(i + k)).join(""));
    await sleep((seconds * 1000 * batch) / lines);
  }
  writeFileSync(join(dir, "r.summary.json"), "{}\n");
  // Every viewer has every line once the stream is over (the reader's end adds the closing events).
  for (let waited = 0; received < count * lines && waited < 20_000; waited += 100) await sleep(100);
  await sleep(500);
  const after = usage(child.pid);
  for (const c of clients) c.destroy();
  child.kill("SIGINT");
  await new Promise((r) => child.on("exit", r));
  rmSync(dir, { recursive: true, force: true });
  return { cpu: after.cpu - before.cpu, peakMb: after.peakMb, perViewer: received / count };
}

/** Descriptors of process `pid` open on `file`. */
function descriptorsOf(pid, file) {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === file) count++;
    } catch {}
  }
  return count;
}

/** `GET /api/sessions` every `everyMs` (not waiting for the previous answer) until stopped: each answer's time. */
function pollSessions(origin, token, everyMs) {
  const ms = [];
  let pending = 0;
  const timer = setInterval(() => {
    const start = now();
    pending++;
    sessions(origin, token).then(() => {
      ms.push(now() - start);
      pending--;
    });
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      for (let waited = 0; pending > 0 && waited < 60_000; waited += 50) await sleep(50);
      return ms;
    },
  };
}

/**
 * Many viewers of one live run log: `serve` follows it while `events` lines are appended at `perSecond`
 * (`stalled` more viewers never read; `extraMb` of further lines appended at once at the end). Reports
 * the server's CPU, peak RSS, `GET /api/sessions` times while it streams, whether each viewer got each
 * event exactly once, the descriptors of the log it still holds once the viewers left, and how long
 * SIGTERM takes to stop it.
 */
export async function manyViewers({ viewers: count, stalled = 0, events, perSecond, extraMb = 0 }) {
  const dir = mkdtempSync(join(tmpdir(), "agentstream-bench-serve-"));
  const log = join(dir, "r.events.ndjson");
  writeFileSync(join(dir, "r.raw"), "");
  const line = (i) =>
    `${JSON.stringify({ v: 1, seq: i, type: "message.delta", messageId: `m${Math.floor(i / 50)}`, role: "assistant", kind: "text", text: `word ${i} `.repeat(60) })}\n`;
  writeFileSync(log, line(0));
  const { child, url } = startCli(["serve", dir], "stdout");
  const { origin, token } = await url;
  const [session] = await sessions(origin, token);
  const before = usage(child.pid);
  const worker = spawn(
    process.execPath,
    [
      join(root, "bench/serve-viewers-worker.mjs"),
      origin,
      token,
      `/api/sessions/${session.id}/events`,
      String(count),
      String(stalled),
      String(events),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = [];
  let waiting;
  worker.stdout.setEncoding("utf8");
  let text = "";
  worker.stdout.on("data", (chunk) => {
    text += chunk;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n")) {
      lines.push(text.slice(0, end));
      text = text.slice(end + 1);
    }
    if (lines.length > 0) waiting?.();
  });
  /** The worker's next line, or undefined after `timeoutMs`. */
  const next = (timeoutMs) =>
    lines.length > 0
      ? Promise.resolve(lines.shift())
      : new Promise((resolve) => {
          const timer = setTimeout(() => {
            waiting = undefined;
            resolve(undefined);
          }, timeoutMs);
          waiting = () => {
            waiting = undefined;
            clearTimeout(timer);
            resolve(lines.shift());
          };
        });
  await next(60_000); // connected
  const poll = pollSessions(origin, token, 50);
  let heldLive = 0;
  const started = now();
  for (let i = 1; i < events; ) {
    const due = Math.min(events, 1 + Math.floor(((now() - started) / 1000) * perSecond));
    if (due > i) {
      appendFileSync(log, Array.from({ length: due - i }, (_, k) => line(i + k)).join(""));
      i = due;
    }
    heldLive = Math.max(heldLive, descriptorsOf(child.pid, log));
    await sleep(10);
  }
  if (extraMb > 0) {
    const size = line(events).length;
    const extra = Math.floor((extraMb * 1e6) / size);
    for (let i = 0; i < extra; i += 2000)
      appendFileSync(log, Array.from({ length: Math.min(2000, extra - i) }, (_, k) => line(events + i + k)).join(""));
  }
  // What the server made of the lines (the reader numbers its events, adding a few of its own): the count its list shows once steady.
  let shown = -1;
  for (let waited = 0; waited < 60_000; waited += 500) {
    const now = (await sessions(origin, token)).find((s) => s.id === session.id)?.events ?? 0;
    if (now === shown && now >= events) break;
    shown = now;
    await sleep(500);
  }
  worker.stdin.write(`expect ${shown}\n`);
  let answer = await next(30_000);
  if (answer === undefined) {
    worker.stdin.end(); // not every viewer got every event: what they got
    answer = await next(10_000);
  }
  const result = JSON.parse(answer ?? '{"everyEvent":0,"duplicates":0,"gaps":0,"fewest":0,"most":0}');
  const apiMs = await poll.stop();
  heldLive = Math.max(heldLive, descriptorsOf(child.pid, log));
  const after = usage(child.pid);
  // SIGTERM with the viewers still connected and the run still live.
  const stopping = now();
  child.kill("SIGTERM");
  const exited = await Promise.race([new Promise((r) => child.on("exit", () => r(true))), sleep(90_000).then(() => false)]);
  const stopMs = exited ? now() - stopping : NaN;
  if (!exited) child.kill("SIGKILL");
  worker.stdin.end();
  if (worker.exitCode === null) await new Promise((r) => worker.on("exit", r));
  rmSync(dir, { recursive: true, force: true });
  return {
    cpu: after.cpu - before.cpu,
    peakMb: after.peakMb,
    api: { p50: percentile(apiMs, 50), p99: percentile(apiMs, 99), max: Math.max(...apiMs), n: apiMs.length },
    ...result,
    held: heldLive,
    stopMs,
  };
}

/** One row of {@link manyViewers}. */
export function reportViewers(label, r, viewers) {
  console.log(
    `serve ${label}: CPU ${r.cpu.toFixed(1)} s, peak RSS ${r.peakMb.toFixed(0)} MB, /api/sessions p50 ${r.api.p50.toFixed(0)} / p99 ${r.api.p99.toFixed(0)} / max ${r.api.max.toFixed(0)} ms (${r.api.n}), every event once: ${r.everyEvent}/${viewers} viewers (${r.duplicates} duplicates, ${r.gaps} gaps, ${r.fewest}–${r.most} events each), log descriptors held (max) ${r.held}, SIGTERM → exit ${r.stopMs.toFixed(0)} ms`,
  );
}

export async function benchServe() {
  if (!existsSync(join(root, "dist/web/app.js"))) return console.log("serve: dist/web missing (npm run build)");
  const report = (label, ms) =>
    console.log(
      `serve latency ${label}: p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms over ${ms.length} lines (target: < 200 ms)`,
    );
  report("agent line → SSE event (agentstream run --serve, a line every 20 ms)", await latencySse());
  const dom = await latencyDom();
  if (dom === undefined) console.log("serve latency → DOM: chromium not installed, skipped");
  else report("agent line → DOM updated (chromium)", dom);
  const one = await viewers(1, 0);
  const fifty = await viewers(50, 0);
  const stalled = await viewers(50, 10);
  const row = (label, r) =>
    console.log(
      `serve ${label}: server CPU ${r.cpu.toFixed(2)} s, peak RSS ${r.peakMb.toFixed(0)} MB, events per viewer ${r.perViewer.toFixed(0)}`,
    );
  console.log("serve, one live run log (4000 events, ~1.2 MB, appended over 8 s):");
  row("  1 viewer             ", one);
  row("  50 viewers           ", fifty);
  row("  50 viewers + 10 stalled", stalled);
  console.log(`  CPU 50 viewers / 1 viewer: ${(fifty.cpu / one.cpu).toFixed(2)}x`);
  console.log(
    "serve, many viewers of one live run log (targets: /api/sessions p99 < 100 ms, RSS < 300 MB, SIGTERM < 2 s, one descriptor of the log):",
  );
  reportViewers(
    "  burst: 3,110 events (~2 MB) in 0.4 s, 50 viewers ",
    await manyViewers({ viewers: 50, events: 3110, perSecond: 7775 }),
    50,
  );
  reportViewers(
    "  burst: 3,110 events (~2 MB) in 0.4 s, 200 viewers",
    await manyViewers({ viewers: 200, events: 3110, perSecond: 7775 }),
    200,
  );
  reportViewers(
    "  1,000 events/s for 5 s, 200 viewers             ",
    await manyViewers({ viewers: 200, events: 5000, perSecond: 1000 }),
    200,
  );
  reportViewers(
    "  1,000 events/s for 2 s + 50 MB at once, 50 viewers + 1 stalled",
    await manyViewers({ viewers: 50, stalled: 1, events: 2000, perSecond: 1000, extraMb: 50 }),
    50,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // node bench/serve.mjs viewers N EVENTS PER_SECOND [STALLED] [EXTRA_MB]: one many-viewers row alone.
  const [mode, ...numbers] = process.argv.slice(2);
  if (mode === "viewers") {
    const [viewers, events, perSecond, stalled = 0, extraMb = 0] = numbers.map(Number);
    reportViewers(
      `${viewers} viewers, ${events} events at ${perSecond}/s`,
      await manyViewers({ viewers, events, perSecond, stalled, extraMb }),
      viewers,
    );
  } else await benchServe();
}
