/** Plain HTTP and SSE clients for tests of `agentstream serve` (127.0.0.1 only). */
import { request, type IncomingHttpHeaders, type IncomingMessage, type ClientRequest } from "node:http";

export interface HttpReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One request to `origin` + `path`; `headers` replace the defaults (a Host of the origin's own). */
export function httpGet(origin: string, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, origin), { method, headers, setHost: headers.Host === undefined }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** One SSE frame as received. */
export interface SseFrame {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: string;
}

/** An open SSE stream: the frames so far, and a way to wait for more. */
export interface SseStream {
  readonly frames: SseFrame[];
  readonly response: Promise<IncomingMessage>;
  /** Resolves once a frame matches (checks the frames already received first). */
  waitFor(match: (frame: SseFrame) => boolean): Promise<SseFrame>;
  /** Resolves when the server ends the stream. */
  readonly closed: Promise<void>;
  readonly request: ClientRequest;
  close(): void;
}

/** Opens an SSE stream (a minimal EventSource: parses `event:`, `id:`, `data:` fields). */
export function openSse(origin: string, path: string, headers: Record<string, string>): SseStream {
  const frames: SseFrame[] = [];
  const waiters: { match: (frame: SseFrame) => boolean; resolve: (frame: SseFrame) => void }[] = [];
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let rest = "";
  const onFrame = (frame: SseFrame): void => {
    frames.push(frame);
    for (const waiter of waiters.filter((w) => w.match(frame))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(frame);
    }
  };
  let req!: ClientRequest;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req = request(new URL(path, origin), { headers }, (res) => {
      resolve(res);
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        rest += chunk;
        for (let end = rest.indexOf("\n\n"); end !== -1; end = rest.indexOf("\n\n")) {
          const block = rest.slice(0, end);
          rest = rest.slice(end + 2);
          const frame = parseFrame(block);
          if (frame !== undefined) onFrame(frame);
        }
      });
    });
    req.on("error", reject);
    // The socket's close, not the response's: a paused response never reports its end.
    req.on("socket", (socket) => socket.on("close", resolveClosed));
    req.end();
  });
  return {
    frames,
    response,
    closed,
    request: req,
    waitFor(match) {
      const seen = frames.find(match);
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () => req.destroy(),
  };
}

function parseFrame(block: string): SseFrame | undefined {
  let event = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "id") id = value;
    else if (field === "data") data.push(value);
  }
  return data.length === 0 ? undefined : { event, id, data: data.join("\n") };
}
