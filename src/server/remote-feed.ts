/**
 * A session of another agentstream server on this machine (a `run --serve` found in the registry),
 * streamed into a local feed: one SSE connection with that server's token, its events pushed as
 * they come (already redacted by that run, their seq kept). The feed ends with that stream.
 */
import { request } from "node:http";
import { createSseDecoder } from "../framing/create-sse-decoder.ts";
import type { AgentEvent, JsonValue } from "../model/events.ts";
import { redactValue } from "../stages/redact/redact-text.ts";
import type { RegisteredRun } from "./registry.ts";
import { SessionFeed } from "./session-feed.ts";

/**
 * Opens the run's stream; the returned feed fills as the run goes on. With `redact`, secrets are
 * replaced again here: that run may have been started with `--no-redact`, this server was not.
 * `signal` closes the connection (the server stopping: an open request would keep it alive until that run ends).
 */
export function openRemoteFeed(run: RegisteredRun, redact: boolean, signal: AbortSignal): SessionFeed {
  const feed = new SessionFeed(run.runId, { file: null, live: true });
  const url = new URL(`/api/sessions/${encodeURIComponent(run.runId)}/events`, run.origin);
  const decoder = createSseDecoder({
    onEvent(frame) {
      if (frame.event !== undefined && frame.event !== "message") {
        if (frame.event === "end") feed.end();
        return;
      }
      const event = JSON.parse(frame.data) as JsonValue;
      feed.push((redact ? redactValue(event) : event) as unknown as AgentEvent);
    },
  });
  const req = request(url, { headers: { Authorization: `Bearer ${run.token}`, Accept: "text/event-stream" }, signal }, (res) => {
    if (res.statusCode !== 200) {
      res.resume();
      feed.end();
      return;
    }
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => decoder.feed(chunk));
    res.on("close", () => feed.end());
  });
  req.on("error", () => feed.end());
  req.end();
  return feed;
}
