// The skimmer's check of skipped strings alone, in-process: `node bench/skim.mjs [--rounds 7]` (after npm run build).
// Runs a `Skimmer` as `summary` does (redaction's secret check on) over the corpus' lines of 64 KiB or more, with the
// JavaScript scan and the WebAssembly SIMD scan, interleaved, and prints the best pass of each in ns per byte of those
// lines (the copy into the module's memory included).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Skimmer } from "../dist/framing/ndjson/_skim.js";
import { mayHoldSecretRaw } from "../dist/stages/redact/redact-text.js";
import { ensureCorpus } from "./corpus.mjs";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "7" }, mb: { type: "string", default: "64" } } });
const file = await ensureCorpus(`claude-${values.mb}mb`, 42, Number(values.mb) * 1e6);
const data = readFileSync(file);
const lines = [];
for (let from = 0; from < data.length; ) {
  const end = data.indexOf(0x0a, from);
  const to = end < 0 ? data.length : end;
  if (to - from >= 64 * 1024) lines.push(data.subarray(from, to));
  from = to + 1;
}
const bytes = lines.reduce((sum, line) => sum + line.length, 0);
const base = {
  keys: new Set(["stdout", "stderr", "aggregated_output", "formatted_output"]),
  toolResultKeys: new Set(["content"]),
  minBytes: 4096,
};
const methods = {
  "js, secret check": [false, { ...base, keep: mayHoldSecretRaw }],
  "simd, secret check": [true, { ...base, keep: mayHoldSecretRaw }],
  "js, no check": [false, base],
  "simd, no check": [true, base],
};
const best = {};
const first = {};
let skipped = {};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, [simd, options]] of Object.entries(methods)) {
    const skimmer = new Skimmer(options, simd ? "auto" : "javascript");
    const start = process.hrtime.bigint();
    let total = 0;
    for (const line of lines) {
      const ranges = skimmer.skim(line);
      for (let r = 0; r < ranges.length; r += 2) total += ranges[r + 1] - ranges[r];
    }
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    best[name] = Math.min(best[name] ?? Infinity, ms);
    first[name] ??= ms;
    skipped = { ...skipped, [name]: total };
  }
}
console.log(
  `${lines.length} lines of 64 KiB or more, ${(bytes / 1e6).toFixed(1)} MB of ${file}; best of ${values.rounds} (and the first pass)`,
);
for (const [name, ms] of Object.entries(best)) {
  console.log(
    `${name.padEnd(22)} ${ms.toFixed(1).padStart(7)} ms  ${((ms * 1e6) / bytes).toFixed(3)} ns/byte (first pass ${first[name].toFixed(1)} ms)  skipped ${skipped[name]} bytes`,
  );
}
