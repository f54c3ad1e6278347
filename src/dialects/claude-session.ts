// Source: see docs/dialects/claude-session.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const claudeSession: Dialect = {
  name: "claude-session",
  description: "Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the claude-session decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
