// Source: see docs/dialects/claude.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const claude: Dialect = {
  name: "claude",
  description: "Claude Code: claude -p --output-format stream-json --verbose [--include-partial-messages]",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the claude decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
