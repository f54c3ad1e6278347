// Writes a tree of Claude Code session files for `bench/usage.mjs` (under /tmp, never in git), built from the
// real transcript captures in ../shared/fixtures/claude-session: each file is a window of a capture's lines with
// fresh ids (message ids, request ids, uuids, session id) and its times moved to a day of its own, so no two
// files share a request, except the resumed copies (a share of the files repeats an earlier file's lines, as a
// resumed session does), which both tools must count once.
//   node bench/generate-sessions.mjs [--out /tmp/agentstream-usage-1000mb] [--mb 1000] [--seed 7]
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Captures whose lines carry requestId, so ccusage's dedupe and ours see the same responses. */
const CAPTURES = [
  "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl",
  "happy_1.0.71_task_subagent_websearch_non_sdk.jsonl",
  "happy_1.0.51_permission_prompt_interrupted.jsonl",
  "switchboard_2.1.206_tool_vocabulary_session_sanitized.jsonl",
];
/** Changes when the output would: an older tree is written again. */
const GENERATOR = 2;
const RESUMED_SHARE = 0.05;
const FILE_BYTES = [40_000, 600_000];

export function generateSessions({ out, mb, seed = 7, shared = "../shared" }) {
  const marker = join(out, ".complete");
  if (existsSync(marker) && readFileSync(marker, "utf8") === `${GENERATOR}:${mb}:${seed}`) return out;
  rmSync(out, { recursive: true, force: true });
  // mulberry32: a float LCG loses its low bits past 2^53 and cycles soon, which would repeat "fresh" ids.
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const sources = CAPTURES.map((name) => join(shared, "fixtures", "claude-session", name))
    .filter((path) => existsSync(path))
    .map((path) =>
      readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== ""),
    );
  if (sources.length === 0) throw new Error(`no capture under ${shared}/fixtures/claude-session`);
  const target = mb * 1e6;
  const written = [];
  let bytes = 0;
  for (let n = 0; bytes < target; n++) {
    const project = `-home-dev-project-${String(n % 40).padStart(2, "0")}`;
    const dir = join(out, "projects", project);
    mkdirSync(dir, { recursive: true });
    let text;
    if (written.length > 10 && random() < RESUMED_SHARE) {
      // A resumed session: an earlier file's history again (same ids), in another file.
      text = readFileSync(written[Math.floor(random() * written.length)], "utf8");
    } else {
      const lines = sources[Math.floor(random() * sources.length)];
      const want = FILE_BYTES[0] + random() * (FILE_BYTES[1] - FILE_BYTES[0]);
      text = freshWindow(lines, want, random, n);
    }
    const file = join(dir, `${uuid(random)}.jsonl`);
    writeFileSync(file, text);
    written.push(file);
    bytes += Buffer.byteLength(text);
  }
  writeFileSync(marker, `${GENERATOR}:${mb}:${seed}`);
  return out;
}

/** Lines of one capture from a random start, wrapping around, until `want` bytes; ids fresh, times on day `n`. */
function freshWindow(lines, want, random, n) {
  const ids = new Map();
  const fresh = (old, make) => {
    let id = ids.get(old);
    if (id === undefined) {
      id = make();
      ids.set(old, id);
    }
    return id;
  };
  const dayShift = Date.UTC(2026, 0, 1) + (n % 300) * 86_400_000;
  let base;
  const out = [];
  let size = 0;
  // Wrapping around repeats the capture's ids: a new round gets new ones.
  for (let i = Math.floor(random() * lines.length), round = 0; size < want; i++) {
    if (i % lines.length === 0 && out.length > 0) {
      ids.clear();
      round++;
    }
    const line = lines[i % lines.length]
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, (m) => fresh(m, () => uuid(random)))
      .replace(/\bmsg_[A-Za-z0-9]+/g, (m) => fresh(m, () => `msg_${token(random, 24)}`))
      .replace(/\breq_[A-Za-z0-9]+/g, (m) => fresh(m, () => `req_${token(random, 24)}`))
      .replace(/("timestamp": ?")([^"]+)"/g, (all, key, time) => {
        const at = Date.parse(time);
        if (Number.isNaN(at)) return all;
        base ??= at;
        return `${key}${new Date(dayShift + (at - base) + round * 3_600_000).toISOString()}"`;
      });
    out.push(line);
    size += line.length + 1;
  }
  return `${out.join("\n")}\n`;
}

function uuid(random) {
  const hex = () => Math.floor(random() * 16).toString(16);
  const part = (k) => Array.from({ length: k }, hex).join("");
  return `${part(8)}-${part(4)}-4${part(3)}-8${part(3)}-${part(12)}`;
}

function token(random, k) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from({ length: k }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
}

/** Files and bytes under a tree. */
export function treeSize(dir) {
  let files = 0;
  let bytes = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      else if (name.endsWith(".jsonl")) {
        files++;
        bytes += s.size;
      }
    }
  };
  walk(dir);
  return { files, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? fallback : args[i + 1];
  };
  const mb = Number(opt("mb", 1000));
  const out = opt("out", `/tmp/agentstream-usage-${mb}mb`);
  const started = Date.now();
  generateSessions({ out, mb, seed: Number(opt("seed", 7)) });
  const { files, bytes } = treeSize(out);
  console.log(`${out}: ${files} files, ${(bytes / 1e6).toFixed(0)} MB (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
