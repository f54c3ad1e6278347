// First-line latency of a live pipe: `render` (or any command) reads stdin; once it has started, one line of a
// small session is written and the time until its first output byte is taken. Alternating builds, paired.
//   node bench/first-line.mjs <bin A> <bin B> [--runs 15] [--file examples/…] [--command "render --mode full"]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const [binA, binB] = args;
const runs = Number(opt("runs", 15));
const command = opt("command", "render --mode full").split(" ");
const firstLine = `${readFileSync(opt("file", "examples/claude-code-session.ndjson"), "utf8").split("\n")[0]}\n`;

/** Milliseconds from writing the line to the first byte out, the process given `settleMs` to start first. */
async function once(bin, settleMs = 700) {
  const child = spawn(process.execPath, [bin, ...command, "-"], { stdio: ["pipe", "pipe", "ignore"] });
  await sleep(settleMs);
  const start = performance.now();
  const first = new Promise((resolve) => child.stdout.once("data", () => resolve(performance.now() - start)));
  child.stdin.write(firstLine);
  const ms = await first;
  child.stdin.end();
  await new Promise((resolve) => child.once("close", resolve));
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const a = [];
const b = [];
for (let i = 0; i < runs; i++) {
  a.push(await once(binA));
  b.push(await once(binB));
}
const ratios = a.map((x, i) => x / b[i]);
console.log(
  `first line out, ms (median of ${runs}): A ${median(a).toFixed(2)}  B ${median(b).toFixed(2)}  A/B paired ${median(ratios).toFixed(2)}`,
);
