/**
 * What the UI protocol encoders (AG-UI, AI SDK) share: records collected per event, the quiet events held until
 * the first session says whose stream it is, the main agent told from its subagents, and one handler per
 * conversation event. Each protocol implements the handlers; what has no handler goes to `onOther`.
 */
import type { AgentEvent, EventOf } from "../model/events.ts";
import { createDispatch, MAX_PREAMBLE, QUIET_EVENT_TYPES } from "./dispatch.ts";

export abstract class UiStreamEncoder<R> {
  private out: R[] = [];
  /** Quiet events held before the first session.started; undefined once the stream has begun. */
  preamble: AgentEvent[] | undefined = [];
  private rootSeen = false;

  // Methods are on the prototype, so the table can name the handlers the protocols declare.
  readonly dispatch = createDispatch<void>(
    {
      "session.started": (event) => this.onSessionStarted(event),
      "session.completed": (event) => this.onSessionCompleted(event),
      "turn.started": (event) => this.onTurnStarted(event),
      "turn.completed": (event) => this.onTurnCompleted(event),
      "message.started": (event) => this.onMessageStarted(event),
      "message.delta": (event) => this.onMessageDelta(event),
      "message.completed": (event) => this.onMessageCompleted(event),
      "tool.started": (event) => this.onToolStarted(event),
      "tool.input.delta": (event) => this.onToolInputDelta(event),
      "tool.progress": (event) => this.onToolProgress(event),
      "tool.completed": (event) => this.onToolCompleted(event),
      "plan.updated": (event) => this.onPlanUpdated(event),
      unknown: (event) => this.onUnknown(event),
    },
    (event) => this.onOther(event),
  );

  send(record: R): void {
    this.out.push(record);
  }

  /** The records since the last call. */
  take(): R[] {
    const records = this.out;
    this.out = [];
    return records;
  }

  /** Holds a quiet event while the stream has not begun (at most MAX_PREAMBLE of them); true when held. */
  hold(event: AgentEvent): boolean {
    if (this.preamble === undefined || !QUIET_EVENT_TYPES.has(event.type) || this.preamble.length >= MAX_PREAMBLE) return false;
    this.preamble.push(event);
    return true;
  }

  /** Begins the stream: the events held before it, in order. */
  takePreamble(): AgentEvent[] {
    const held = this.preamble ?? [];
    this.preamble = undefined;
    return held;
  }

  /**
   * A session.started of the main agent: one with no parent, or the first session of a stream that has no root
   * (a subagent's own transcript is the main agent there, as `summary` counts it).
   */
  isRootStart(event: AgentEvent): event is EventOf<"session.started"> {
    if (event.type !== "session.started") return false;
    if ((event.parentSessionId !== undefined || event.parentToolCallId !== undefined) && this.rootSeen) return false;
    this.rootSeen = true;
    return true;
  }

  abstract onSessionStarted(event: EventOf<"session.started">): void;
  abstract onSessionCompleted(event: EventOf<"session.completed">): void;
  abstract onTurnStarted(event: EventOf<"turn.started">): void;
  abstract onTurnCompleted(event: EventOf<"turn.completed">): void;
  abstract onMessageStarted(event: EventOf<"message.started">): void;
  abstract onMessageDelta(event: EventOf<"message.delta">): void;
  abstract onMessageCompleted(event: EventOf<"message.completed">): void;
  abstract onToolStarted(event: EventOf<"tool.started">): void;
  abstract onToolInputDelta(event: EventOf<"tool.input.delta">): void;
  abstract onToolProgress(event: EventOf<"tool.progress">): void;
  abstract onToolCompleted(event: EventOf<"tool.completed">): void;
  abstract onPlanUpdated(event: EventOf<"plan.updated">): void;
  /** What the protocol has no event for. */
  abstract onOther(event: AgentEvent): void;

  onUnknown(event: EventOf<"unknown">): void {
    this.onOther(event);
  }
}
