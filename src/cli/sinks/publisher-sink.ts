/**
 * The publisher sink: each input's events to NATS JetStream (src/fleet/publisher.ts). It never
 * makes the pipeline wait; at the end it waits (up to the flush timeout) for NATS to take what is
 * left, and keeps the report: what was published, spooled, dropped, still waiting.
 */
import type { Publisher, PublishReport } from "../../fleet/publisher.ts";
import type { Sink } from "./sink.ts";

export interface PublisherSink extends Sink {
  /** Set once `end` (or `close`) has returned. */
  readonly report: PublishReport | undefined;
  /** Ends the publisher when the pipeline stopped before `end` (an input could not be read). */
  close(): Promise<PublishReport>;
}

export function createPublisherSink(publisher: Publisher, flushTimeoutMs: number): PublisherSink {
  let report: PublishReport | undefined;
  return {
    get report() {
      return report;
    },
    event(event, input) {
      publisher.event(event, input);
    },
    endInput(run) {
      publisher.endInput(run.name);
    },
    async end() {
      report = await publisher.close(flushTimeoutMs);
    },
    async close() {
      report ??= await publisher.close(flushTimeoutMs);
      return report;
    },
  };
}

/** The one line `publish` and `run --publish` print about it: counts, and any loss said plainly. */
export function describePublishReport(report: PublishReport): string {
  const parts = [`${report.published} event(s) published to ${report.stream} on ${report.servers}`];
  if (report.duplicates > 0) parts.push(`${report.duplicates} already there`);
  if (report.spooled > 0) parts.push(`${report.spooled} went through the spool`);
  if (report.dropped > 0) parts.push(`${report.dropped} DROPPED (the spool was full: --spool-max)`);
  if (report.waiting > 0) parts.push(`${report.waiting} still waiting in ${report.spoolFile} (the next publish on this host sends them)`);
  return parts.join(", ");
}
