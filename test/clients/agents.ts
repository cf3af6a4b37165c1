// The OpenAI Agents SDK as the tests and bench:agent import it: it resolves from this workspace
// (test/clients/package.json), where its peer zod 4 lives.
export {
  Agent,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
  toolSearchTool,
  type AgentInputItem,
} from "@openai/agents";
