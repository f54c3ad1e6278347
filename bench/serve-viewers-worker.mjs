// The viewers of bench/serve.mjs's many-viewers rows, in their own process so that their parsing does
// not delay the process that times `GET /api/sessions`. Opens `viewers` SSE streams of one session
// (and `stalled` more that are never read), prints `connected` once every stream answered, then, when
// its stdin ends or `events` distinct events reached every viewer, one JSON line: how many viewers got
// every seq below `events` exactly once, and the duplicates seen.
//   node bench/serve-viewers-worker.mjs <origin> <token> <path> <viewers> <stalled> <events>
import { request } from "node:http";

const [origin, token, path, ...numbers] = process.argv.slice(2);
const [viewers, stalled, events] = numbers.map(Number);
const seen = Array.from({ length: viewers }, () => new Set());
let duplicates = 0;
let connected = 0;
const clients = [];

function open(onSeq) {
  const req = request(new URL(path, origin), { headers: { Authorization: `Bearer ${token}` } }, (res) => {
    connected++;
    if (connected === viewers + stalled) process.stdout.write("connected\n");
    if (onSeq === undefined) return res.pause();
    let rest = "";
    res.setEncoding("utf8");
    res.on("data", (chunk) => {
      rest += chunk;
      for (let end = rest.indexOf("\n\n"); end !== -1; end = rest.indexOf("\n\n")) {
        const frame = rest.slice(0, end);
        rest = rest.slice(end + 2);
        const id = /^id: (\d+)$/m.exec(frame)?.[1];
        if (id !== undefined) onSeq(Number(id));
      }
    });
  });
  req.on("error", () => {});
  req.end();
  clients.push(req);
}

let complete = 0;
for (let i = 0; i < viewers; i++) {
  const mine = seen[i];
  open((seq) => {
    if (mine.has(seq)) duplicates++;
    mine.add(seq);
    if (seq === events - 1 || mine.size === events) if (mine.size >= events && ++complete === viewers) report();
  });
}
for (let i = 0; i < stalled; i++) open(undefined);

let reported = false;
function report() {
  if (reported) return;
  reported = true;
  let everyEvent = 0;
  for (const set of seen) {
    let all = true;
    for (let seq = 0; seq < events && all; seq++) all = set.has(seq);
    if (all) everyEvent++;
  }
  process.stdout.write(`${JSON.stringify({ everyEvent, duplicates })}\n`);
}
process.stdin.on("end", () => {
  report();
  for (const c of clients) c.destroy();
  process.exit(0);
});
process.stdin.resume();
