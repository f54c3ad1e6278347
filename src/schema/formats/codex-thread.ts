// Schema and sequence rules for `--format codex-thread`. (Stub: not written yet.)
import type { FormatSpec } from "../formats.ts";

/** `codex-thread`: its JSON Schema 2020-12 and sequence rules. */
export const codexThreadFormat: FormatSpec | undefined = undefined;
