// Source: see docs/dialects/codex-thread.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const codexThread: Dialect = {
  name: "codex-thread",
  description: "Codex-style --stream-json lifecycle (dev-agent design: thread/turn/item)",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the codex-thread decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
