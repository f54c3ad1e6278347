// Source: see docs/dialects/codex-session.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const codexSession: Dialect = {
  name: "codex-session",
  description: "Codex rollout files (~/.codex/sessions/**/rollout-*.jsonl)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the codex-session decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
