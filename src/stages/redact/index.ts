export { createRedactionStage, type RedactionStage } from "./create-redaction-stage.ts";
export { createStreamRedactor, holdStart, type StreamRedactor } from "./create-stream-redactor.ts";
export { isSecretKey, redactText, redactValue, type RedactionCounts } from "./redact-text.ts";
export { RULES, type RedactionKind, type RedactionRule } from "./rules.ts";
