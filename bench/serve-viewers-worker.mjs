// The viewers of bench/serve.mjs's many-viewers rows, in their own process so that their parsing does
// not delay the process that times `GET /api/sessions`. Opens `viewers` SSE streams of one session
// (and `stalled` more that are never read) and prints `connected` once every stream answered. A line
// `expect N` on stdin: once every viewer holds N events (or when stdin ends), prints one JSON line:
// how many viewers got events 0..N-1 each exactly once and in order, the duplicates and gaps seen,
// and the fewest and most events a viewer got.
//   node bench/serve-viewers-worker.mjs <origin> <token> <path> <viewers> <stalled>
import { request } from "node:http";
import { onSseFrames } from "./sse-frames.mjs";

const [origin, token, path, ...numbers] = process.argv.slice(2);
const [viewers, stalled] = numbers.map(Number);
/** Per viewer: the events received, and the last id. */
const received = Array.from({ length: viewers }, () => ({ count: 0, last: -1, inOrder: true }));
let duplicates = 0;
let gaps = 0;
let connected = 0;
let expected = Number.POSITIVE_INFINITY;
const clients = [];

function open(onId) {
  const req = request(new URL(path, origin), { headers: { Authorization: `Bearer ${token}` } }, (res) => {
    connected++;
    if (connected === viewers + stalled) process.stdout.write("connected\n");
    if (onId === undefined) return res.pause();
    onSseFrames(res, (frame) => {
      const id = /^id: (\d+)$/m.exec(frame)?.[1];
      if (id !== undefined) onId(Number(id));
    });
  });
  req.on("error", () => {});
  req.end();
  clients.push(req);
}

for (const mine of received) {
  open((id) => {
    // The reader numbers events one by one: anything but the next id is a duplicate or a gap.
    if (id <= mine.last) duplicates++;
    else if (id !== mine.last + 1) gaps++;
    if (id !== mine.last + 1) mine.inOrder = false;
    mine.last = Math.max(mine.last, id);
    mine.count++;
    check();
  });
}
for (let i = 0; i < stalled; i++) open(undefined);

let reported = false;
function check() {
  if (!reported && received.every((r) => r.count >= expected)) report();
}
function report() {
  reported = true;
  const counts = received.map((r) => r.count);
  const everyEvent = received.filter((r) => r.inOrder && r.count === expected).length;
  process.stdout.write(`${JSON.stringify({ everyEvent, duplicates, gaps, fewest: Math.min(...counts), most: Math.max(...counts) })}\n`);
}
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
  const found = /expect (\d+)\n/.exec(input);
  if (found !== null) {
    expected = Number(found[1]);
    check();
  }
});
process.stdin.on("end", () => {
  if (!reported) report();
  for (const c of clients) c.destroy();
  process.exit(0);
});
