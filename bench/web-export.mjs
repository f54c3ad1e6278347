// The HTML export, measured: `agentstream html` on one generated session of 10 MB (and 50 MB for
// the size), the page's size against the input's, and in chromium the time to first contentful
// paint and until the whole session is on the page (the app appends it in batches). Not a test: it asserts nothing. Needs a build
// (npm run build) and Debian's chromium.
//   node bench/web-export.mjs [--mb 10,50] [--rounds 3]
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { benchTempDir } from "./temp.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const sizes = String(opt("mb", "10,50")).split(",").map(Number);
const rounds = Number(opt("rounds", 3));

/** One session in our event format: prompts, Markdown answers, tool calls with outputs of every size, edits with diffs, usage per turn. */
async function generate(path, targetBytes) {
  const out = createWriteStream(path);
  let seq = 0;
  let bytes = 0;
  const write = async (event) => {
    const line = `${JSON.stringify({ v: 1, seq: seq++, sessionId: "bench", ...event })}\n`;
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await new Promise((r) => out.once("drain", r));
  };
  const text = (n) => "The quick brown fox jumps over the lazy dog; `code` and **bold**.\n".repeat(Math.ceil(n / 66)).slice(0, n);
  await write({ type: "session.started", agent: "bench-agent", model: "bench-model", cwd: "/work/bench" });
  for (let turn = 0; bytes < targetBytes; turn++) {
    await write({ type: "message.completed", messageId: `u${turn}`, role: "user", kind: "text", text: `Step ${turn}: ${text(200)}` });
    await write({ type: "message.completed", messageId: `r${turn}`, role: "assistant", kind: "reasoning", text: text(800) });
    for (let call = 0; call < 4; call++) {
      const id = `t${turn}-${call}`;
      // Most outputs are small; one in 20 is 100 KB; one in 400 a 3 MB log (the caps' case).
      const size = turn % 100 === 50 && call === 0 ? 3_000_000 : (turn * 4 + call) % 20 === 0 ? 100_000 : 2_000;
      await write({ type: "tool.started", toolCallId: id, name: "Bash", kind: "command", input: { command: `make step-${turn}-${call}` } });
      await write({ type: "tool.completed", toolCallId: id, output: text(size), isError: call === 3 && turn % 7 === 0, exitCode: 0 });
    }
    const diff = `--- a/src/file${turn}.ts\n+++ b/src/file${turn}.ts\n@@ -1,3 +1,3 @@\n-old line ${turn}\n+new line ${turn}\n context\n`;
    await write({
      type: "tool.started",
      toolCallId: `e${turn}`,
      name: "Edit",
      kind: "file_edit",
      input: { file_path: `/work/bench/src/file${turn}.ts` },
    });
    await write({
      type: "file.changed",
      toolCallId: `e${turn}`,
      changes: [{ path: `/work/bench/src/file${turn}.ts`, kind: "update", diff }],
    });
    await write({ type: "tool.completed", toolCallId: `e${turn}`, output: "ok", isError: false });
    await write({
      type: "message.completed",
      messageId: `a${turn}`,
      role: "assistant",
      kind: "text",
      text: `## Step ${turn}\n\n${text(1500)}`,
    });
    const usage = { inputTokens: 1000 + turn, outputTokens: 300, cacheReadTokens: 20000, cacheWriteTokens: 500, reasoningTokens: null };
    await write({ type: "turn.completed", turnId: `turn${turn}`, usage, costUsd: 0.01 });
  }
  await write({ type: "session.completed", status: "success", durationMs: 600000 });
  await new Promise((r) => out.end(r));
}

const dir = new URL("./.corpus/", import.meta.url).pathname;
mkdirSync(dir, { recursive: true });
const tmp = benchTempDir("web");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
console.log(`node ${process.version}, chromium ${browser.version()}, ${rounds} rounds (medians)\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const mb of sizes) {
  const input = join(dir, `web-session-${mb}mb.ndjson`);
  if (!existsSync(input) || statSync(input).size < mb * 1e6) await generate(input, mb * 1e6);
  const pages = join(tmp, `${mb}`);
  const started = performance.now();
  execFileSync(process.execPath, ["dist/cli/bin.js", "html", "-q", "--from", "agentstream", "-o", `${pages}/`, input]);
  const exportMs = performance.now() - started;
  const [page] = readdirSync(pages).map((n) => join(pages, n));
  const inBytes = statSync(input).size;
  const outBytes = statSync(page).size;
  const paints = [];
  const ready = [];
  for (let r = 0; r < rounds; r++) {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await tab.goto(`file://${page}`, { timeout: 300_000 });
    await tab.waitForSelector('#agentstream[data-state="ended"]', { state: "attached", timeout: 300_000 });
    const t = await tab.evaluate(() => ({
      fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
      load: performance.now(),
    }));
    paints.push(t.fcp);
    ready.push(t.load);
    await tab.close();
  }
  console.log(
    `${mb} MB session: input ${(inBytes / 1e6).toFixed(1)} MB → page ${(outBytes / 1e6).toFixed(2)} MB (${((outBytes / inBytes) * 100).toFixed(0)}%), ` +
      `export ${(exportMs / 1000).toFixed(1)} s; chromium first contentful paint ${median(paints).toFixed(0)} ms, whole session on the page ${median(ready).toFixed(0)} ms`,
  );
}
await browser.close();
