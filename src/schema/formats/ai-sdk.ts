// Schema and sequence rules for `--format ai-sdk`. (Stub: not written yet.)
import type { FormatSpec } from "../formats.ts";

/** `ai-sdk`: its JSON Schema 2020-12 and sequence rules. */
export const aiSdkFormat: FormatSpec | undefined = undefined;
