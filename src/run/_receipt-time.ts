/**
 * Under `run`, every event carries a time (docs/events.md): the agent's own when its record had one,
 * else when `run` received the output it came from (or made the event: stderr lines, heartbeats, how
 * the agent ended). The oneshot seed and the dev-agent design define their records' times as the
 * time the event was received; this is where that time is taken, on the thread that reads the agent
 * (the reader's `defaultTime`: the envelope asks for it once per event its record gave no time).
 */
/** The receipt time of the output being read: taken once per chunk, made a string once per chunk. */
export class ReceiptClock {
  private ms = Date.now();
  private iso: string | undefined;

  /** Output arrived (or we are about to make an event of our own): events from now on are stamped with this moment. */
  arrived(): void {
    this.ms = Date.now();
    this.iso = undefined;
  }

  now(): string {
    this.iso ??= new Date(this.ms).toISOString();
    return this.iso;
  }
}
