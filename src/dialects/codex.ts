// Source: see docs/dialects/codex.md. (Stub: detection and decoding are not written yet.)
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

export const codex: Dialect = {
  name: "codex",
  description: "Codex CLI: codex exec --json (current, 0.40-0.43 experimental, and legacy {id,msg})",
  detect: () => false,
  createDecoder() {
    return {
      decode(record) {
        return record.kind === "json" ? [unknownRecord(record.value, "the codex decoder is not written yet")] : [];
      },
      end: () => [],
    };
  },
};
