/** What an export did, in a form the CLI prints without loading the exporter. */

/** What an exporter did, for the run's report. */
export interface ExportReport {
  readonly endpoint: string;
  /** Spans the receiver accepted (a partial success's rejected ones excluded). */
  readonly exported: number;
  /** Spans never sent: the queue was full, a request failed after its retries, or the deadline came first. */
  readonly dropped: number;
  /** Spans a receiver answered 2xx for but rejected (OTLP partial success). */
  readonly rejected: number;
  readonly requests: number;
  /** The last failure or partial-success message, when there was one. */
  readonly lastError: string | null;
}

/** One line for people about an export. */
export function describeExport(report: ExportReport): string {
  const parts = [`${report.exported} span${report.exported === 1 ? "" : "s"} exported to ${report.endpoint}`];
  if (report.dropped > 0) parts.push(`${report.dropped} dropped`);
  if (report.rejected > 0) parts.push(`${report.rejected} rejected by the receiver`);
  const text = parts.join(", ");
  return report.lastError === null ? text : `${text} (last: ${report.lastError})`;
}
