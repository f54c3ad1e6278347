/**
 * The live exporter of `run --otlp`: spans go out as they end, in batches, one request at a time, from a bounded
 * queue. Adding a span never waits (the agent's events are never held back by the network): when the queue is full
 * the span is dropped and counted; a batch that fails after its retries is dropped and counted too. `close()` sends
 * what is left within a deadline and says what happened (docs/otel.md).
 */
import type { AgentEvent } from "../model/events.ts";
import { SpanMapper, type SpanMappingOptions } from "../formats/otlp/spans.ts";
import type { FinishedSpan, SpanAttributes } from "../formats/otlp/wire.ts";
import type { OtlpExportConfig } from "./config.ts";
import { serializeSpans } from "./serialize.ts";
import type { ExportReport } from "./report.ts";
import { DEFAULT_RETRY, type RetryPolicy, sendTraces } from "./send.ts";

export interface SpanExporterOptions {
  /** Spans held while a request is on its way, at most (the SDKs' `maxQueueSize`; ours is larger, 8192: an agent can end hundreds of spans a second). */
  readonly maxQueue?: number;
  /** Spans per request, at most (`maxExportBatchSize`; ours is half the SDKs' 512: a batch's encoding is short work on the run's thread). */
  readonly batchSize?: number;
  /** How long a span may wait for companions before its batch is sent (`scheduledDelayMillis`). */
  readonly delayMs?: number;
  readonly retry?: RetryPolicy;
}

export class SpanExporter {
  private readonly config: OtlpExportConfig;
  private readonly resource: SpanAttributes;
  private readonly maxQueue: number;
  private readonly batchSize: number;
  private readonly delayMs: number;
  private readonly retry: RetryPolicy;
  private queue: FinishedSpan[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private readonly stop = new AbortController();
  private exported = 0;
  private dropped = 0;
  private rejected = 0;
  private requests = 0;
  private lastError: string | null = null;

  constructor(config: OtlpExportConfig, resource: SpanAttributes, options: SpanExporterOptions = {}) {
    this.config = config;
    this.resource = resource;
    this.maxQueue = options.maxQueue ?? 8192;
    this.batchSize = options.batchSize ?? 256;
    this.delayMs = options.delayMs ?? 1000;
    this.retry = options.retry ?? DEFAULT_RETRY;
  }

  /** One finished span; returns at once. */
  add(span: FinishedSpan): void {
    if (this.queue.length >= this.maxQueue) {
      this.dropped++;
      return;
    }
    this.queue.push(span);
    if (this.sending !== undefined) return;
    if (this.queue.length >= this.batchSize) this.kick();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.kick(), this.delayMs);
      this.timer.unref();
    }
  }

  /** Sends what is queued, giving up at `deadlineMs` from now (what is then unsent counts as dropped). */
  async close(deadlineMs: number): Promise<ExportReport> {
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, deadlineMs).unref());
    const drained = (async () => {
      while (this.queue.length > 0 || this.sending !== undefined) {
        if (this.sending === undefined) this.kick();
        await this.sending;
      }
    })();
    await Promise.race([drained, deadline]);
    this.stop.abort();
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.sending;
    this.dropped += this.queue.length;
    this.queue = [];
    return this.report();
  }

  report(): ExportReport {
    return {
      endpoint: this.config.url,
      exported: this.exported,
      dropped: this.dropped,
      rejected: this.rejected,
      requests: this.requests,
      lastError: this.lastError,
    };
  }

  private kick(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sending !== undefined || this.queue.length === 0 || this.stop.signal.aborted) return;
    const batch = this.queue.splice(0, this.batchSize);
    this.sending = this.send(batch).finally(() => {
      this.sending = undefined;
      if (this.queue.length >= this.batchSize) this.kick();
      else if (this.queue.length > 0 && !this.stop.signal.aborted) {
        this.timer = setTimeout(() => this.kick(), this.delayMs);
        this.timer.unref();
      }
    });
  }

  private async send(batch: readonly FinishedSpan[]): Promise<void> {
    this.requests++;
    const result = await sendTraces(this.config, serializeSpans(batch, this.resource, this.config.protocol), this.retry, this.stop.signal);
    if (!result.ok) {
      this.dropped += batch.length;
      this.lastError = result.reason;
      return;
    }
    const rejected = Math.min(result.partial?.rejectedSpans ?? 0, batch.length);
    this.rejected += rejected;
    this.exported += batch.length - rejected;
    if (result.partial !== undefined) this.lastError = `partial success: ${result.partial.errorMessage || `${rejected} spans rejected`}`;
  }
}

const WARM_UP_SPANS = 256;
const WARM_UP_SPAN: FinishedSpan = {
  traceId: "00000000000000000000000000000001",
  spanId: "0000000000000001",
  name: "warm-up",
  kind: 1,
  startMs: 0,
  endMs: 0,
  attributes: { "warm.up": 1 },
  status: { code: 0 },
};

/** `run --otlp`: the run's events mapped to spans as they come, each span exported when it ends. */
export interface LiveExport {
  add(event: AgentEvent): void;
  /** Ends what is open (the run is over) and sends the rest within `deadlineMs`. */
  close(deadlineMs: number): Promise<ExportReport>;
}

export function createLiveExport(
  config: OtlpExportConfig,
  resource: SpanAttributes,
  mapping: SpanMappingOptions,
  options: SpanExporterOptions = {},
): LiveExport {
  const exporter = new SpanExporter(config, resource, options);
  const mapper = new SpanMapper(mapping, (span) => exporter.add(span));
  // The transformer's modules load, and its code is compiled, on first use: pay for that now, before the agent starts,
  // not as a stall of the run's first batch.
  serializeSpans(
    Array.from({ length: WARM_UP_SPANS }, () => WARM_UP_SPAN),
    resource,
    config.protocol,
  );
  return {
    add: (event) => mapper.add(event),
    close(deadlineMs) {
      mapper.end();
      return exporter.close(deadlineMs);
    },
  };
}
