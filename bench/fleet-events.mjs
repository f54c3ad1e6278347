// Synthetic agentstream events for the fleet bench (bench/fleet.mjs, bench/fleet-load-worker.mjs).
const source = { dialect: "claude" };

/** An assistant's answer: a message.completed event of `sessionId` at `seq`. */
export function answerEvent(sessionId, seq, text) {
  return { v: 1, seq, type: "message.completed", messageId: `m${seq}`, role: "assistant", kind: "text", text, sessionId, source };
}

export function sessionStarted(sessionId, extra = {}) {
  return { v: 1, seq: 0, type: "session.started", sessionId, ...extra, source };
}

export function sessionCompleted(sessionId, seq) {
  return { v: 1, seq, type: "session.completed", status: "success", sessionId, source };
}
