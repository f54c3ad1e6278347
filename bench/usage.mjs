// `agentstream usage` over a generated tree of Claude Code session files (bench/generate-sessions.mjs, under
// /tmp), beside ccusage on the same files: wall time, CPU and peak RSS of each run (a fresh child process,
// measured by /usr/bin/time), the first run against the unchanged re-run and one after appends to a few % of
// the files, one worker thread against two, peak RSS over a quarter of the files against all of them (and,
// with --scale, over trees of 0.33 and 3.3 times the bytes, as many times the files), and the totals of both tools side by side.
// Not a test: it asserts nothing. Figures on a shared machine are noisy: compare ratios from one run; the
// load average is printed beside them.
//   node bench/usage.mjs [--mb 1000] [--out /tmp/agentstream-usage-1000mb] [--append-share 0.03] [--scale]
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { generateSessions, treeSize } from "./generate-sessions.mjs";
import { benchTempDir } from "./temp.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const mb = Number(opt("mb", 1000));
const out = opt("out", `/tmp/agentstream-usage-${mb}mb`);
const appendShare = Number(opt("append-share", 0.03));
const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`;

const started = Date.now();
generateSessions({ out, mb });
const { files, bytes } = treeSize(out);
console.log(
  `\nusage: ${files} Claude session files, ${(bytes / 1e6).toFixed(0)} MB under ${out} (ready in ${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
const projects = join(out, "projects");

/**
 * Wall seconds, CPU seconds (user + system), peak RSS (MB), minor page faults and stdout of one command in a fresh
 * process. The faults are printed because on a VM each costs ~12 µs (docs/usage.md): a short run's fresh memory is
 * part of its time.
 */
function measure(command, commandArgs, env = {}) {
  const timed = existsSync("/usr/bin/time");
  const t0 = performance.now();
  const result = spawnSync(timed ? "/usr/bin/time" : command, timed ? ["-f", "%U %S %M %R", command, ...commandArgs] : commandArgs, {
    env: { ...process.env, TZ: "UTC", NO_COLOR: "1", ...env },
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(" ")}: exit ${result.status}\n${result.stderr}`);
  const [user, system, rssKb, faults] = timed ? (result.stderr.trim().split("\n").at(-1) ?? "").split(" ").map(Number) : [];
  return {
    seconds,
    cpu: timed ? user + system : Number.NaN,
    rssMb: timed ? rssKb / 1024 : Number.NaN,
    faults: timed ? faults : Number.NaN,
    stdout: result.stdout,
  };
}

const ours = (paths, extra = [], env = {}) =>
  // The package's bin, as `agentstream` runs.
  measure(process.execPath, ["dist/cli/bin.cjs", "usage", ...paths, "--json", "--tz", "UTC", ...extra], env);
const totalsOf = (run) => JSON.parse(run.stdout).totals;

function findCcusage() {
  for (const bin of [process.env.CCUSAGE_BIN, "node_modules/.bin/ccusage"]) {
    if (bin === undefined) continue;
    const probe = spawnSync(bin, ["--version"], { encoding: "utf8" });
    if (probe.status === 0 && /^\d+\./.test(probe.stdout.trim())) return { bin, version: probe.stdout.trim() };
  }
  return undefined;
}

console.log(`  ${load()} at the start`);
const noCache = ours([projects], ["--no-cache"]);
const oneThread = ours([projects], ["--no-cache", "--threads", "1"]);
const twoThreads = ours([projects], ["--no-cache", "--threads", "2"]);
const cacheHome = benchTempDir("usage-cache");
/** The run of median wall time among `rounds`, `before` called ahead of each. */
function median(run, before = () => {}, rounds = ROUNDS) {
  const runs = Array.from({ length: rounds }, () => {
    before();
    return run();
  });
  return runs.sort((a, b) => a.seconds - b.seconds)[Math.floor(rounds / 2)];
}
const ROUNDS = 5;
// The first run is a median too (of 3, each from no cache): the re-runs are compared with it, and one run of a
// few seconds on a shared machine can be 10 % off either way.
const first = median(
  () => ours([projects], [], { XDG_CACHE_HOME: cacheHome }),
  () => rmSync(cacheHome, { recursive: true, force: true }),
  3,
);
// The caches as a first run left them: each appended re-run starts from a copy (a re-run updates them).
const warm = benchTempDir("usage-warm");
cpSync(cacheHome, warm, { recursive: true });
const fromWarm = () => {
  rmSync(cacheHome, { recursive: true, force: true });
  cpSync(warm, cacheHome, { recursive: true });
};
const cached = median(() => ours([projects], [], { XDG_CACHE_HOME: cacheHome }));

// Appends: one more response in a few % of the files (spread over the tree), then in one file; each read from
// its last offset. The files are cut back after.
const all = [];
for (const dir of readdirSync(projects).sort()) {
  for (const name of readdirSync(join(projects, dir)).sort()) if (name.endsWith(".jsonl")) all.push(join(projects, dir, name));
}
const step = Math.max(1, Math.round(1 / appendShare));
const appended = all.filter((_, i) => i % step === 0);
const sizes = appended.map((file) => statSync(file).size);
const appendTo = (files) =>
  files.forEach((file, i) => {
    const line = {
      type: "assistant",
      sessionId: `appended-${i}`,
      requestId: `req_appended_${i}`,
      timestamp: "2026-11-01T12:00:00.000Z",
      message: {
        id: `msg_appended_${i}`,
        model: "claude-sonnet-4-20250514",
        usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 30, cache_creation_input_tokens: 40 },
      },
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  });
let afterAppend;
let afterOne;
try {
  appendTo(appended.slice(0, 1));
  afterOne = median(() => ours([projects], [], { XDG_CACHE_HOME: cacheHome }), fromWarm);
  truncateSync(appended[0], sizes[0]);
  // The cut changed that file's mtime: the warm caches are made again before the next appends.
  rmSync(cacheHome, { recursive: true, force: true });
  ours([projects], [], { XDG_CACHE_HOME: cacheHome });
  rmSync(warm, { recursive: true, force: true });
  cpSync(cacheHome, warm, { recursive: true });
  appendTo(appended);
  afterAppend = median(() => ours([projects], [], { XDG_CACHE_HOME: cacheHome }), fromWarm);
} finally {
  for (const [i, file] of appended.entries()) truncateSync(file, sizes[i]);
}
const loadAfterCached = load();
const quarterDirs = readdirSync(projects)
  .sort()
  .slice(0, Math.ceil(readdirSync(projects).length / 4))
  .map((d) => join(projects, d));
const quarter = ours(quarterDirs, ["--no-cache"]);

const cc = findCcusage();
const theirs =
  cc === undefined ? undefined : measure(cc.bin, ["daily", "--offline", "--json", "--timezone", "UTC"], { CLAUDE_CONFIG_DIR: out });

const row = (label, r, note = "") =>
  console.log(
    `  ${label.padEnd(46)}${r.seconds.toFixed(2).padStart(8)} s${r.cpu.toFixed(2).padStart(8)} s${r.rssMb.toFixed(0).padStart(8)} MB${String(r.faults).padStart(9)}  ${note}`,
  );
const share = (r) =>
  `${((100 * r.seconds) / first.seconds).toFixed(1)} % of the first run's wall, ${((100 * r.cpu) / first.cpu).toFixed(1)} % of its CPU`;
console.log(`  ${"run".padEnd(46)}${"wall".padStart(10)}${"CPU".padStart(10)}${"peak RSS".padStart(11)}${"faults".padStart(9)}`);
row("agentstream usage --no-cache (all cores)", noCache);
row("agentstream usage --no-cache --threads 1", oneThread);
row(
  "agentstream usage --no-cache --threads 2",
  twoThreads,
  `2 workers: ${(oneThread.seconds / twoThreads.seconds).toFixed(2)}x the speed of 1 (wall), CPU ${(twoThreads.cpu / oneThread.cpu).toFixed(2)}x`,
);
row("agentstream usage, first run (writes the cache; median of 3)", first);
console.log(`  (the re-runs below: the median of ${ROUNDS}, each appended one from the first run's caches)`);
row("agentstream usage, again, nothing changed", cached, share(cached));
row("agentstream usage, again, 1 file appended", afterOne, share(afterOne));
row(
  `agentstream usage, again, ${appended.length} files appended (${((100 * appended.length) / files).toFixed(1)} %)`,
  afterAppend,
  `${share(afterAppend)} (target ≤ 25 %)`,
);
console.log(`  (${loadAfterCached} after the cached runs)`);
row(
  `agentstream usage --no-cache, a quarter of the files`,
  quarter,
  `peak RSS ${(quarter.rssMb / noCache.rssMb).toFixed(2)}x the whole tree's`,
);
if (args.includes("--scale")) {
  // Peak RSS against the number of files: trees of about 1/3 and 3.3 times as many files, same generator.
  console.log("\n  files     MB   requests  peak RSS (usage --no-cache, all cores)");
  const scaleRow = (tree) => {
    const { files: n, bytes: b } = treeSize(tree);
    const run = ours([join(tree, "projects")], ["--no-cache"]);
    console.log(
      `  ${String(n).padStart(6)}${(b / 1e6).toFixed(0).padStart(7)}${String(totalsOf(run).requests).padStart(11)}${run.rssMb.toFixed(0).padStart(7)} MB  (${load()})`,
    );
  };
  for (const scaled of [Math.round(mb * 0.33), mb, Math.round(mb * 3.3)]) {
    scaleRow(scaled === mb ? out : generateSessions({ out: `/tmp/agentstream-usage-${scaled}mb`, mb: scaled }));
  }
}
if (theirs === undefined) console.log("  ccusage: not runnable here (set CCUSAGE_BIN to a ccusage that runs, e.g. 18.x)");
else {
  row(
    `ccusage ${cc.version} daily --offline --json`,
    theirs,
    `agentstream ${(theirs.seconds / first.seconds).toFixed(2)}x faster (target >= 8x, issue #29)`,
  );
  const a = totalsOf(first).tokens;
  const b = JSON.parse(theirs.stdout).totals;
  const pairs = [
    ["input", a.input, b.inputTokens],
    ["cache read", a.cacheRead, b.cacheReadTokens],
    ["cache write", a.cacheWrite, b.cacheCreationTokens],
    ["output", a.output, b.outputTokens],
  ];
  console.log("\n  totals        agentstream        ccusage");
  for (const [label, x, y] of pairs) {
    const note = x === y ? "equal" : "differs: ccusage keeps a response's first line, we its last (docs/usage.md)";
    console.log(`  ${label.padEnd(12)}${x.toLocaleString("en").padStart(14)}${y.toLocaleString("en").padStart(15)}  ${note}`);
  }
}
execFileSync("rm", ["-rf", cacheHome]);
