/**
 * The attribute names and values we write, from the OpenTelemetry GenAI semantic conventions (Development status;
 * the version we implement is pinned in docs/otel.md). They are plain strings here because the core imports no
 * package; test/formats/otlp/attributes.test.ts checks each against @opentelemetry/semantic-conventions' constants,
 * so a renamed attribute fails a test. Our own facts are under `agentstream.` (never an invented `gen_ai.*`).
 */

/** GenAI attribute names (the incubating entry point of @opentelemetry/semantic-conventions). */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** The name older conventions (v1.36.0 and before) used for the provider; written unless the opt-in asks for the latest only. */
  system: "gen_ai.system",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  agentVersion: "gen_ai.agent.version",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  timeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolDescription: "gen_ai.tool.description",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
} as const;

/** General attribute names (the stable entry point). */
export const GENERAL = { errorType: "error.type", serviceName: "service.name" } as const;

/** `gen_ai.operation.name` values. */
export const OPERATION = { invokeAgent: "invoke_agent", chat: "chat", executeTool: "execute_tool" } as const;

/** `gen_ai.tool.type` values. */
export const TOOL_TYPE = { function: "function", extension: "extension" } as const;

/** `gen_ai.provider.name` values we map to (well-known ones of the conventions). */
export const PROVIDER = { anthropic: "anthropic", openai: "openai", gemini: "gcp.gemini" } as const;

/** agentstream's own facts: no convention names them. */
export const AGENTSTREAM = {
  costUsd: "agentstream.cost_usd",
  costEstimated: "agentstream.cost_estimated",
  repairs: "agentstream.repairs",
  repairKinds: "agentstream.repair_kinds",
  status: "agentstream.session.status",
  error: "agentstream.session.error",
  dialect: "agentstream.dialect",
  turns: "agentstream.turns",
  toolKind: "agentstream.tool.kind",
  exitCode: "agentstream.tool.exit_code",
  turnId: "agentstream.turn.id",
  subagents: "agentstream.subagents",
  parentSessionId: "agentstream.parent_session_id",
} as const;
