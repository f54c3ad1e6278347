// `GET /api/search` of `agentstream serve` (the built binary) over a generated tree of Claude Code sessions
// (bench/generate-sessions.mjs): how long the first search takes (the index built in serve's worker thread), and how
// `GET /api/sessions` answers meanwhile (asked every 50 ms: p50 / p99 / max), then a search with nothing changed and
// one after an append to a served log. Not a test: it asserts nothing. The machine may be shared: figures are rough;
// the load average is printed beside them.
//   node bench/serve-search.mjs [--mb 50] [--out /tmp/agentstream-serve-search-50mb]
import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, statSync } from "node:fs";
import { request } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { generateSessions } from "./generate-sessions.mjs";
import { benchTempDir } from "./temp.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const mb = Number(opt("mb", 50));
const out = opt("out", `/tmp/agentstream-serve-search-${mb}mb`);
generateSessions({ out, mb });

function get(origin, path, token) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(new URL(path, origin), { headers: { Authorization: `Bearer ${token}` } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body, ms: performance.now() - started }));
    });
    req.on("error", reject);
    req.end();
  });
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const cache = benchTempDir("serve-search-cache");
const child = spawn(process.execPath, ["dist/cli/bin.js", "serve", out], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, XDG_CACHE_HOME: cache },
});
try {
  const url = new URL(await new Promise((resolve) => child.stdout.once("data", (chunk) => resolve(chunk.toString().trim()))));
  const token = url.searchParams.get("token");
  const listed = await get(url.origin, "/api/sessions", token);
  console.log(
    `${mb} MB tree, ${JSON.parse(listed.body).length} sessions listed (first list ${listed.ms.toFixed(0)} ms); ${loadavg()[0].toFixed(1)} load`,
  );
  const lists = [];
  let searching = true;
  const poll = (async () => {
    while (searching) {
      lists.push((await get(url.origin, "/api/sessions", token)).ms);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const first = await get(url.origin, "/api/search?q=function", token);
  searching = false;
  await poll;
  const hits = JSON.parse(first.body).hits.length;
  console.log(`first search (index built): ${(first.ms / 1000).toFixed(1)} s, ${hits} hits, status ${first.status}`);
  console.log(
    `  /api/sessions meanwhile (${lists.length} answers): p50 ${percentile(lists, 50).toFixed(0)} ms, p99 ${percentile(lists, 99).toFixed(0)} ms, max ${Math.max(...lists).toFixed(0)} ms`,
  );
  const again = [];
  for (let i = 0; i < 20; i++) again.push((await get(url.origin, `/api/search?q=${i % 2 ? "function" : "%22the%20file%22"}`, token)).ms);
  console.log(`searches, nothing changed: p50 ${percentile(again, 50).toFixed(0)} ms, p99 ${percentile(again, 99).toFixed(0)} ms`);
  const some = readdirSync(out, { recursive: true })
    .map((name) => join(out, String(name)))
    .find((path) => path.endsWith(".jsonl") && statSync(path).isFile());
  appendFileSync(some, `${JSON.stringify({ type: "user", sessionId: "bench", message: { role: "user", content: "zanzibarquill" } })}\n`);
  await new Promise((resolve) => setTimeout(resolve, 1100)); // the catalog walks at most once a second
  const after = await get(url.origin, "/api/search?q=zanzibarquill", token);
  console.log(
    `search after an append: ${after.ms.toFixed(0)} ms, ${JSON.parse(after.body).hits.length} hit(s); ${loadavg()[0].toFixed(1)} load`,
  );
} finally {
  child.kill("SIGTERM");
}
