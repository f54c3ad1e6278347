// Schema and sequence rules for `--format oneshot`. (Stub: not written yet.)
import type { FormatSpec } from "../formats.ts";

/** `oneshot`: its JSON Schema 2020-12 and sequence rules. */
export const oneshotFormat: FormatSpec | undefined = undefined;
