/**
 * One OTLP/HTTP export request, with the specification's retry rule: 429, 502, 503 and 504 and network errors are
 * retried with exponential backoff and jitter (a `Retry-After` is honoured up to the cap), a bounded number of times;
 * any other status is final. A 2xx response may still reject spans (partial success): that is reported, not retried.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { OtlpExportConfig } from "./config.ts";
import { partialSuccessOf, type PartialSuccess } from "./serialize.ts";

/** How many times and how long to try (defaults as the OpenTelemetry JS exporters). */
export interface RetryPolicy {
  readonly attempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, initialBackoffMs: 1000, maxBackoffMs: 5000 };

export type SendResult =
  | { readonly ok: true; readonly attempts: number; readonly partial?: PartialSuccess }
  | { readonly ok: false; readonly attempts: number; readonly reason: string };

const RETRYABLE = new Set([429, 502, 503, 504]);

interface Reply {
  readonly status: number;
  readonly body: Uint8Array;
  readonly retryAfterMs: number | undefined;
}

/** Sends `body` (already serialized for `config.protocol`), retrying as the policy allows. */
export async function sendTraces(
  config: OtlpExportConfig,
  body: Uint8Array,
  retry: RetryPolicy = DEFAULT_RETRY,
  signal?: AbortSignal,
): Promise<SendResult> {
  let backoff = retry.initialBackoffMs;
  let reason = "";
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    let wait: number | undefined;
    try {
      const reply = await post(config, body, signal);
      if (reply.status >= 200 && reply.status < 300) {
        const partial = partialSuccessOf(reply.body, config.protocol);
        return partial === undefined ? { ok: true, attempts: attempt } : { ok: true, attempts: attempt, partial };
      }
      reason = `HTTP ${reply.status}${describeBody(reply.body)}`;
      if (!RETRYABLE.has(reply.status)) return { ok: false, attempts: attempt, reason };
      wait = reply.retryAfterMs;
    } catch (error) {
      // Stopped from outside (the run's export deadline): the reason it was still trying is the one to tell.
      if (signal?.aborted === true)
        return { ok: false, attempts: attempt, reason: reason === "" ? "not sent before the deadline" : reason };
      reason = error instanceof Error ? error.message : String(error);
    }
    if (attempt === retry.attempts || signal?.aborted === true) return { ok: false, attempts: attempt, reason };
    const jittered = backoff * (0.8 + Math.random() * 0.4);
    await sleep(Math.min(wait ?? jittered, retry.maxBackoffMs), signal);
    backoff = Math.min(backoff * 1.5, retry.maxBackoffMs);
  }
  return { ok: false, attempts: retry.attempts, reason };
}

function describeBody(body: Uint8Array): string {
  const text = new TextDecoder()
    .decode(body.subarray(0, 200))
    .replace(/[^\x20-\x7e]+/g, " ")
    .trim();
  return text === "" ? "" : `: ${text}`;
}

/** Waits `ms`, or less when `signal` aborts (the caller then stops trying). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

function post(config: OtlpExportConfig, body: Uint8Array, signal: AbortSignal | undefined): Promise<Reply> {
  const url = new URL(config.url);
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  const contentType = config.protocol === "http/json" ? "application/json" : "application/x-protobuf";
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: { ...config.headers, "content-type": contentType, "content-length": String(body.length) },
        timeout: config.timeoutMs,
        agent: false,
        ...(signal === undefined ? {} : { signal }),
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (part: Buffer) => parts.push(part));
        res.on("error", reject);
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts), retryAfterMs: retryAfter(res.headers["retry-after"]) }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${config.timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}
