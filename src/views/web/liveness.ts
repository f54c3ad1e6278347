/**
 * The pane's liveness line: "working" while the agent's events keep coming, "idle 42 s" when it has
 * been silent (its own heartbeat events say how long), "reconnecting…" while the stream is down,
 * "ended" once the session is over. Activity is dated by the event's own time when it has one, so a
 * session caught up from its log reads as idle since its last event, not as working now.
 */
import type { AgentEvent } from "../../model/events.ts";
import { el } from "./dom.ts";

/** Silence shorter than this still reads as working. */
const WORKING_MS = 3000;

type LivenessState = "working" | "idle" | "reconnecting" | "ended";

export class Liveness {
  readonly element = el("span", { class: "as-liveness", attrs: { role: "status", "aria-live": "off" } });
  private lastActivity = 0;
  private connected = false;
  private ended = false;
  private readonly timer: number;

  constructor() {
    this.timer = window.setInterval(() => this.show(), 1000);
    this.show();
  }

  /** An event of the session arrived. */
  event(event: AgentEvent): void {
    const now = Date.now();
    const stated = event.time === undefined ? Number.NaN : Date.parse(event.time);
    const at = Number.isNaN(stated) ? now : Math.min(stated, now);
    if (event.type === "heartbeat") this.lastActivity = Math.max(this.lastActivity, now - (event.idleMs ?? 0));
    else this.lastActivity = Math.max(this.lastActivity, at);
    this.show();
  }

  /** The stream is up, or down (with the server's reason when it dropped us: shown on hover). */
  connection(up: boolean, reason?: string): void {
    this.connected = up;
    if (reason !== undefined) this.element.title = reason;
    else if (up) this.element.removeAttribute("title");
    this.show();
  }

  end(): void {
    this.ended = true;
    window.clearInterval(this.timer);
    this.show();
  }

  dispose(): void {
    window.clearInterval(this.timer);
  }

  get state(): LivenessState {
    if (this.ended) return "ended";
    if (!this.connected) return "reconnecting";
    return Date.now() - this.lastActivity < WORKING_MS ? "working" : "idle";
  }

  private show(): void {
    const state = this.state;
    const idle = Math.round((Date.now() - this.lastActivity) / 1000);
    this.element.dataset.state = state;
    this.element.textContent =
      state === "idle"
        ? this.lastActivity === 0
          ? "waiting"
          : `idle ${formatIdle(idle)}`
        : state === "reconnecting"
          ? "reconnecting…"
          : state;
  }
}

/** "42 s", "3 min", "2 h". */
function formatIdle(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}
