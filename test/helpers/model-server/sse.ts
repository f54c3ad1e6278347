/** Server-sent events on a node:http response, as both APIs frame them: `event: <name>\ndata: <json>\n\n`. */
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

export interface SseWriter {
  send(event: string, data: object): void;
  /** A `data:` line without an event name (Chat Completions and the Gemini API frame their chunks so); a string is sent as is (`[DONE]`). */
  data(data: object | string): void;
  /** Waits `ms`, sending `onTick()` every `everyMs` meanwhile (keeps the connection visibly alive). */
  wait(ms: number, everyMs?: number, onTick?: () => void): Promise<void>;
  end(): void;
}

export function openSse(res: ServerResponse): SseWriter {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  return {
    send(event, data) {
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    data(data) {
      res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    },
    async wait(ms, everyMs = ms, onTick) {
      for (let left = ms; left > 0; left -= everyMs) {
        await sleep(Math.min(left, everyMs));
        if (left > everyMs) onTick?.();
      }
    },
    end() {
      res.end();
    },
  };
}

/** A JSON error body with a non-2xx status. */
export function sendJsonError(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
