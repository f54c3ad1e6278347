/**
 * Every attribute name and value we write, checked against @opentelemetry/semantic-conventions' constants (the
 * incubating entry point for gen_ai.*, the stable one for error.type and service.name): a renamed attribute fails here.
 */
import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import * as stable from "@opentelemetry/semantic-conventions";
import { describe, expect, it } from "vitest";
import { AGENTSTREAM, GEN_AI, GENERAL, OPERATION, PROVIDER, TOOL_TYPE } from "../../../src/formats/otlp/attributes.ts";

describe("otlp attribute names", () => {
  it("are the semantic conventions' gen_ai.* constants", () => {
    const expected: Record<keyof typeof GEN_AI, string> = {
      operationName: incubating.ATTR_GEN_AI_OPERATION_NAME,
      providerName: incubating.ATTR_GEN_AI_PROVIDER_NAME,
      system: incubating.ATTR_GEN_AI_SYSTEM,
      agentName: incubating.ATTR_GEN_AI_AGENT_NAME,
      agentId: incubating.ATTR_GEN_AI_AGENT_ID,
      agentVersion: incubating.ATTR_GEN_AI_AGENT_VERSION,
      conversationId: incubating.ATTR_GEN_AI_CONVERSATION_ID,
      requestModel: incubating.ATTR_GEN_AI_REQUEST_MODEL,
      responseModel: incubating.ATTR_GEN_AI_RESPONSE_MODEL,
      finishReasons: incubating.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
      timeToFirstChunk: incubating.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
      inputTokens: incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      outputTokens: incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      cacheReadTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      cacheCreationTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      reasoningTokens: incubating.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
      toolName: incubating.ATTR_GEN_AI_TOOL_NAME,
      toolCallId: incubating.ATTR_GEN_AI_TOOL_CALL_ID,
      toolType: incubating.ATTR_GEN_AI_TOOL_TYPE,
      toolDescription: incubating.ATTR_GEN_AI_TOOL_DESCRIPTION,
      toolArguments: incubating.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
      toolResult: incubating.ATTR_GEN_AI_TOOL_CALL_RESULT,
      inputMessages: incubating.ATTR_GEN_AI_INPUT_MESSAGES,
      outputMessages: incubating.ATTR_GEN_AI_OUTPUT_MESSAGES,
    };
    expect(GEN_AI).toEqual(expected);
  });

  it("are the stable error.type and service.name", () => {
    expect(GENERAL).toEqual({ errorType: stable.ATTR_ERROR_TYPE, serviceName: stable.ATTR_SERVICE_NAME });
  });

  it("use the conventions' well-known values", () => {
    expect(OPERATION).toEqual({
      invokeAgent: incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    });
    expect(PROVIDER).toEqual({
      anthropic: incubating.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
      openai: incubating.GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
      gemini: incubating.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
    });
    // gen_ai.tool.type has no generated constants: its values are named in the conventions' text (docs/otel.md).
    expect(TOOL_TYPE).toEqual({ function: "function", extension: "extension" });
  });

  it("keep agentstream's own facts under agentstream., never an invented gen_ai.* name", () => {
    const known = new Set<unknown>(Object.values(incubating));
    for (const name of Object.values(AGENTSTREAM)) {
      expect(name.startsWith("agentstream.")).toBe(true);
      expect(known.has(name)).toBe(false);
    }
  });
});
