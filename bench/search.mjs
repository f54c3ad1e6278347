// `agentstream search` over a generated tree of sessions of several agents: Claude Code transcripts from the usage
// bench's generator (bench/generate-sessions.mjs, most of the bytes), beside copies of the real Codex and Gemini
// captures of ../shared/fixtures (their streams, each copy a file of its own). Measured: the index's first build
// (wall, CPU, peak RSS of a fresh process, the index's size), a run with nothing changed, a run after appends to a
// few % of the files (what the update report says), query latency p50/p99 in one process once indexed (words,
// phrases, facets only, a regex), and `grep -r -i` of the same words over the raw tree as the floor users know.
// Not a test: it asserts nothing. Figures on a shared machine are noisy; the load average is printed beside them.
//   node bench/search.mjs [--mb 200] [--out /tmp/agentstream-search-200mb] [--rounds 40]
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { generateSessions, treeSize } from "./generate-sessions.mjs";
import { benchTempDir } from "./temp.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const mb = Number(opt("mb", 200));
const out = opt("out", `/tmp/agentstream-search-${mb}mb`);
const rounds = Number(opt("rounds", 40));
const shared = "../shared";
const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`;

/** The Codex and Gemini captures, copied until they are `share` of the tree's bytes each (a marker keeps a tree made once). */
function addOtherAgents(root, share) {
  const marker = join(root, ".others-complete");
  if (existsSync(marker) && readFileSync(marker, "utf8") === String(share)) return;
  for (const agent of ["codex", "gemini"]) {
    const captures = [`${agent}-session`, agent].flatMap((folder) => {
      const dir = join(shared, "fixtures", folder);
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((n) => n.endsWith(".jsonl"))
            .map((n) => join(dir, n))
        : [];
    });
    if (captures.length === 0) continue;
    const target = mb * 1e6 * share;
    const dir = join(root, agent);
    mkdirSync(dir, { recursive: true });
    let bytes = 0;
    for (let n = 0; bytes < target; n++) {
      const from = captures[n % captures.length];
      const name = `${String(n).padStart(6, "0")}-${from.split("/").pop()}`;
      copyFileSync(from, join(dir, name));
      bytes += statSync(from).size;
    }
  }
  writeFileSync(marker, String(share));
}

/** Wall seconds, CPU seconds, peak RSS (MB) and stdout of one command in a fresh process (/usr/bin/time). */
function measure(command, commandArgs, env = {}) {
  const timed = existsSync("/usr/bin/time");
  const t0 = performance.now();
  const result = spawnSync(timed ? "/usr/bin/time" : command, timed ? ["-f", "%U %S %M", command, ...commandArgs] : commandArgs, {
    env: { ...process.env, TZ: "UTC", NO_COLOR: "1", ...env },
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`${command} ${commandArgs.join(" ")}: exit ${result.status}\n${result.stderr}`);
  const [user, system, rssKb] = timed ? (result.stderr.trim().split("\n").at(-1) ?? "").split(" ").map(Number) : [];
  return { seconds, cpu: timed ? user + system : Number.NaN, rssMb: timed ? rssKb / 1024 : Number.NaN, stdout: result.stdout };
}

const started = Date.now();
generateSessions({ out: join(out, "claude"), mb: Math.round(mb * 0.8) });
addOtherAgents(out, 0.1);
const { files, bytes } = treeSize(out);
console.log(
  `\nsearch: ${files} session files (Claude, Codex, Gemini), ${(bytes / 1e6).toFixed(0)} MB under ${out} (ready in ${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
console.log(`  ${load()} at the start`);

const cacheHome = benchTempDir("search-cache");
const indexPath = join(cacheHome, "agentstream", "search-v4.sqlite");
const cli = (query, extra = []) =>
  measure(process.execPath, ["dist/cli/bin.cjs", "search", query, out, "--json", "--limit", "5", ...extra], { XDG_CACHE_HOME: cacheHome });
const row = (name, run, note = "") =>
  console.log(
    `  ${name.padEnd(34)} ${run.seconds.toFixed(2).padStart(7)} s  cpu ${run.cpu.toFixed(2).padStart(6)} s  peak RSS ${run.rssMb.toFixed(0).padStart(5)} MB  ${note}`,
  );

const first = cli("migration");
const indexed = JSON.parse(first.stdout).index;
row(
  "first run (builds the index)",
  first,
  `${indexed.sessions} sessions, ${indexed.documents} texts, index ${(statSync(indexPath).size / 1e6).toFixed(0)} MB`,
);
const again = cli("migration");
const againReport = JSON.parse(again.stdout).index;
row("again, nothing changed", again, `changed ${againReport.changed}, unchanged ${againReport.unchanged}`);

// Appends to 3% of the Claude files: a user line each, as a session in progress writes.
const claudeFiles = [];
const walk = (d) => {
  for (const name of readdirSync(d)) {
    const path = join(d, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".jsonl")) claudeFiles.push(path);
  }
};
walk(join(out, "claude"));
const appended = claudeFiles.filter((_, i) => i % 33 === 0);
for (const file of appended) {
  appendFileSync(
    file,
    `${JSON.stringify({ type: "user", sessionId: "appended", uuid: `u-${file.length}`, timestamp: "2026-12-01T00:00:00.000Z", cwd: "/work/appended", message: { role: "user", content: "benchappendedword" } })}\n`,
  );
}
const afterAppends = cli("benchappendedword");
const report = JSON.parse(afterAppends.stdout).index;
row(`after appends to ${appended.length} files`, afterAppends, `changed ${report.changed}, unchanged ${report.unchanged}`);

// Query latency in one process, once indexed: what the MCP server and the web view see.
const { openSearchIndex } = await import("../dist/search/index.js");
const index = openSearchIndex({ env: process.env, paths: [out], cacheDir: join(cacheHome, "agentstream") });
const update = index.update();
console.log(`  in-process update, nothing changed: ${update.elapsedMs.toFixed(0)} ms (${update.unchanged} files unchanged)`);
const queries = [
  ["word: component", { text: "component" }],
  ["word: useState", { text: "useState" }],
  ["rare word: benchappendedword", { text: "benchappendedword" }],
  ['phrase: "npm run build"', { text: '"npm run build"' }],
  ['phrase: "todo app"', { text: '"todo app"' }],
  ["facets: --tool Edit --file page.tsx", { tool: "Edit", file: "page.tsx" }],
  ["facets: --agent codex", { agents: ["codex"] }],
  ["regex: /use[A-Z]\\w+\\(/", { regex: "use[A-Z]\\w+\\(" }],
];
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
for (const [name, query] of queries) {
  const times = [];
  let hits = 0;
  // A regex reads every text: a few rounds say enough.
  const runs = query.regex === undefined ? rounds : Math.min(rounds, 5);
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    hits = index.search({ ...query, limit: 20 }).hits.length;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `  query ${name.padEnd(36)} p50 ${percentile(times, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(times, 99).toFixed(1).padStart(7)} ms  (${hits} hits shown)`,
  );
}
index.close();

// The floor: grep -r -i of the same words over the raw tree (every byte read each time).
for (const word of ["component", "useState", "npm run build"]) {
  const grep = measure("grep", ["-r", "-i", "-c", word, out]);
  row(`grep -r -i "${word}"`, grep);
}
console.log(`  ${load()} at the end`);
