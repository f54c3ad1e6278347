// One publishing process of the fleet load (bench/fleet.mjs, test/fleet/nats-load.test.ts): `--agents`
// fake agents, each a session of `--events` events, all live at once (their events interleaved, a
// few at a time per agent, as concurrent agents write them), through one publisher (dist/, so
// `npm run build` first). Prints the publisher's report and the CPU time it took, as one JSON line.
//   node bench/fleet-load-worker.mjs <nats-url> --host h --agents 25 --events 10000 --spool <dir>
import { parseArgs } from "node:util";
import { createPublisher } from "../dist/fleet/publisher.js";
import { answerEvent, sessionCompleted, sessionStarted } from "./fleet-events.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    host: { type: "string", default: "load" },
    agents: { type: "string", default: "25" },
    events: { type: "string", default: "10000" },
    spool: { type: "string" },
    burst: { type: "string", default: "8" },
  },
});
const [url] = positionals;
const agents = Number(values.agents);
const events = Number(values.events);
const burst = Number(values.burst);
const started = process.cpuUsage();
const wall = performance.now();
const publisher = createPublisher({
  connection: { servers: url },
  stream: { name: "AGENTSTREAM" },
  host: values.host,
  spoolDir: values.spool,
  spoolMaxBytes: 4 * 2 ** 30,
  onNotice: (text) => process.stderr.write(`${values.host}: ${text}\n`),
});

/** Event `seq` of agent `a`: a session.started, message.completed events, a session.completed. */
function eventOf(a, seq) {
  const sessionId = `${values.host}-agent-${a}`;
  if (seq === 0) return sessionStarted(sessionId);
  if (seq === events - 1) return sessionCompleted(sessionId, seq);
  return answerEvent(sessionId, seq, `agent ${a} says ${seq}`);
}

for (let seq = 0; seq < events; seq += burst) {
  for (let a = 0; a < agents; a++) for (let s = seq; s < Math.min(seq + burst, events); s++) publisher.event(eventOf(a, s), `agent-${a}`);
  // Agents write over time: let the publisher send between bursts.
  await new Promise((resolve) => setImmediate(resolve));
}
for (let a = 0; a < agents; a++) publisher.endInput(`agent-${a}`);
const report = await publisher.close(600_000);
const cpu = process.cpuUsage(started);
process.stdout.write(`${JSON.stringify({ report, wallMs: performance.now() - wall, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
