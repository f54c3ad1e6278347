// The `otel` section of `npm run bench` (also alone: node bench/otel.mjs <corpus>, after npm run build): OpenTelemetry
// export (docs/otel.md) against a receiver in this process on 127.0.0.1 that only counts bytes. Not a test: it
// asserts nothing.
//   export    `agentstream otlp` of a saved session: spans/s and MB of log/s, peak RSS (protobuf, JSON), beside
//             `convert --to otlp` (the mapping and OTLP/JSON alone, no network)
//   latency   agent line → our event on stdout under `run --to agentstream`, p50/p99, without and with `--otlp`
import { execFileSync, spawn } from "node:child_process";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchTempDir } from "./temp.mjs";

const root = join(fileURLToPath(import.meta.url), "../..");
const bin = join(root, "dist/cli/bin.js");
const hasTime = existsSync("/usr/bin/time");

/** A receiver that accepts everything and counts requests and bytes. */
async function startCounter() {
  const counts = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on("data", (part) => (counts.bytes += part.length));
    req.on("end", () => {
      counts.requests++;
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, counts, close: () => server.close() };
}

/** Runs the CLI to its end, asynchronously (the receiver answers from this process meanwhile). */
function cli(args, env = {}) {
  const command = hasTime ? "/usr/bin/time" : process.execPath;
  const argv = hasTime ? ["-f", "%M", process.execPath, bin, ...args] : [bin, ...args];
  const started = performance.now();
  const child = spawn(command, argv, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  child.stderr.on("data", (part) => (stderr += part));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const ms = performance.now() - started;
      const rssKb = hasTime ? Number(stderr.trim().split("\n").at(-1)) : Number.NaN;
      resolve({ code, ms, rssMb: rssKb / 1024, stderr });
    }),
  );
}

async function exportRows(corpus) {
  const mb = statSync(corpus).size / 1e6;
  const receiver = await startCounter();
  console.log(`\notel export of ${corpus.split("/").pop()} (${mb.toFixed(1)} MB; receiver in the bench process, counting bytes):`);
  console.log(`${"method".padEnd(34)}${"spans/s".padStart(10)}${"MB/s".padStart(8)}${"peak RSS MB".padStart(13)}${"sent MB".padStart(9)}`);
  for (const protocol of ["http/protobuf", "http/json"]) {
    const before = receiver.counts.bytes;
    const result = await cli(["otlp", receiver.origin, corpus, "--protocol", protocol], { XDG_STATE_HOME: benchTempDir("otel-state") });
    const spans = Number(/\((\d+) spans\)/.exec(result.stderr)?.[1] ?? Number.NaN);
    const sent = (receiver.counts.bytes - before) / 1e6;
    const line = `otlp ${protocol}`.padEnd(34);
    console.log(
      `${line}${Math.round(spans / (result.ms / 1000))
        .toLocaleString("en")
        .padStart(
          10,
        )}${(mb / (result.ms / 1000)).toFixed(1).padStart(8)}${result.rssMb.toFixed(0).padStart(13)}${sent.toFixed(1).padStart(9)}`,
    );
  }
  const convert = await cli(["convert", "--to", "otlp", corpus]);
  console.log(
    `${"convert --to otlp (no network)".padEnd(34)}${"".padStart(10)}${(mb / (convert.ms / 1000)).toFixed(1).padStart(8)}${convert.rssMb.toFixed(0).padStart(13)}`,
  );
  receiver.close();
}

/** An agent writing a Bash call and its result every 2 ms, 2000 of them, each carrying the time it was written. */
const TICKER = `const sid="ticker";const w=(r)=>process.stdout.write(JSON.stringify(r)+"\\n");
w({type:"system",subtype:"init",session_id:sid,model:"claude-sonnet-4-5",tools:["Bash"]});let i=0;
const t=setInterval(()=>{const id="toolu_"+i;const at=performance.timeOrigin+performance.now();
w({type:"assistant",session_id:sid,message:{id:"m"+i,role:"assistant",content:[{type:"tool_use",id,name:"Bash",input:{command:"echo "+at}}]}});
w({type:"user",session_id:sid,message:{role:"user",content:[{type:"tool_result",tool_use_id:id,content:"ok"}]}});
if(++i===2000){clearInterval(t);w({type:"result",subtype:"success",session_id:sid,result:"done",is_error:false})}},2)`;

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** Latency agent line → tool.started on our stdout, in ms, for one run of the CLI. */
function latencyRun(extra) {
  const child = spawn(process.execPath, [bin, "run", "--to", "agentstream", ...extra, "--", process.execPath, "-e", TICKER], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const ms = [];
  let rest = "";
  child.stdout.on("data", (chunk) => {
    const now = performance.timeOrigin + performance.now();
    const lines = (rest + chunk.toString("utf8")).split("\n");
    rest = lines.pop();
    for (const line of lines) {
      if (!line.includes('"tool.started"')) continue;
      const at = Number(/echo ([\d.]+)/.exec(line)?.[1]);
      if (Number.isFinite(at)) ms.push(now - at);
    }
  });
  return new Promise((resolve) => child.on("close", () => resolve(ms)));
}

async function latencyRows() {
  const receiver = await startCounter();
  console.log("\notel latency under run (2000 tool calls, one every 2 ms; agent line → event on stdout):");
  console.log(`${"method".padEnd(34)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"spans sent".padStart(12)}`);
  for (const [name, extra] of [
    ["run --to agentstream", []],
    ["run --to agentstream --otlp", ["--otlp", receiver.origin]],
  ]) {
    const ms = await latencyRun(extra);
    console.log(
      `${name.padEnd(34)}${percentile(ms, 50).toFixed(2).padStart(9)}${percentile(ms, 99).toFixed(2).padStart(9)}${String(receiver.counts.requests > 0 ? "yes" : "-").padStart(12)}`,
    );
  }
  receiver.close();
}

/** A saved session of 20,000 tool calls (test/fixtures/fake-agents/many-tools.mjs): the span-heavy case. */
function toolHeavyCorpus() {
  const path = join(benchTempDir("otel-corpus"), "many-tools.jsonl");
  const text = execFileSync(process.execPath, [join(root, "test/fixtures/fake-agents/many-tools.mjs"), "--tools=20000"], {
    maxBuffer: 1 << 30,
  });
  writeFileSync(path, text);
  return path;
}

/** The otel section: export throughput of `corpus` and of a tool-heavy session, and the latency `--otlp` adds under run. */
export async function benchOtel(corpus) {
  execFileSync(process.execPath, [bin, "--version"]);
  await exportRows(corpus);
  await exportRows(toolHeavyCorpus());
  await latencyRows();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const corpus = process.argv[2];
  if (corpus === undefined) {
    console.error("usage: node bench/otel.mjs <corpus>");
    process.exit(2);
  }
  await benchOtel(corpus);
}
