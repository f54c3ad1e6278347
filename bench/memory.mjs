// Peak RSS as the stream grows: a real capture (../shared/fixtures) repeated to 100 MB and 1 GB,
// read as one stream, so ids recur as they do in a long or concatenated log. Each run is a fresh
// child process (bench/method.mjs reads the file `repeat` times in 64 KiB chunks; nothing is
// written to disk). Flat figures mean per-message, per-tool and per-session state is released.
//   node bench/memory.mjs [--sizes 100,1000] [--commands summary,convert]
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
  reportMemory(opt("sizes", "100,1000").split(",").map(Number), opt("commands", "summary,convert").split(","));
}
