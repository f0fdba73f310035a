import type { Agent } from './agents/agent';
import { systemPromptFor } from './agents/systemPrompt';
import type { AgentDefinitions } from './definitions/definitionSet';
import type { ApprovalService, RunInteractionPolicy, UserInteractionService } from './interaction';
import type { ToolCall, ToolSpec } from './models/types';
import { definedAgentsPart } from './parts';
import { ToolCatalog, errorResult } from './tools/catalog';
import type { RuntimeTool, RuntimeToolContext, ToolHost } from './tools/context';
import type { ToolResult } from './tools/types';
import { isToolVisible } from './tools/visibility';

/** What the tools and prompts need of the runtime: it is the tools' host (what ctx.runtime is), with the human's services and the definitions. */
export interface RuntimeToolsHost extends ToolHost {
  readonly interaction: UserInteractionService;
  readonly approvals: ApprovalService;
  readonly definitions: AgentDefinitions;
}

const visibleInContext = (def: RuntimeTool, ctx: RuntimeToolContext): boolean => isToolVisible(ctx.agent, def);

/**
 * The AgentHost side that every model call goes through: the tools an agent is offered, running
 * one of its tool calls, and its system prompt.
 *
 * Invariants: what a tool sees is its policy's and plan mode's to say (tools/visibility.ts), so
 * the offered list is made once per policy and mode as of a version of the tools, and every
 * model call of such an agent is offered the same array until a tool is added or withdrawn; a
 * call is checked against the same visibility it was offered under; a tool its definitions leave
 * out is refused by name, not reported as unknown; definitions cost nothing (their part is not
 * even loaded) until one is in use.
 */
export class RuntimeTools {
  readonly catalog = new ToolCatalog<RuntimeToolContext>();
  /** The tools offered under each policy, with and without plan mode, as of a version of the tools. */
  private readonly offered = new WeakMap<RunInteractionPolicy, { version: number; plan?: readonly ToolSpec[]; work?: readonly ToolSpec[] }>();

  constructor(
    private readonly host: RuntimeToolsHost,
    private readonly basePrompt: string,
  ) {}

  specs(agent: Agent): readonly ToolSpec[] {
    const tools = this.catalog;
    const policy = agent.run.policy;
    let lists = this.offered.get(policy);
    if (!lists || lists.version !== tools.version) this.offered.set(policy, (lists = { version: tools.version }));
    const key = agent.planMode ? 'plan' : 'work';
    const specs = (lists[key] ??= tools.specs((def) => isToolVisible(agent, def)));
    if (!agent.bounds && this.host.definitions.size === 0) return specs;
    const part = definedAgentsPart();
    return part.withDefinitionsListed(part.boundedSpecs(specs, agent.bounds), this.host.definitions);
  }

  run(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    const { host, catalog } = this;
    const refusal = agent.bounds && catalog.get(call.name) ? definedAgentsPart().toolRefusal(agent.bounds, call.name) : undefined;
    if (refusal) return Promise.resolve(errorResult(refusal));
    const ctx: RuntimeToolContext = { agent, signal, toolCallId: call.id, runtime: host, policy: agent.run.policy, interaction: host.interaction, approvals: host.approvals };
    return catalog.execute(call, ctx, visibleInContext);
  }

  systemPrompt(agent: Agent): string {
    const prompt = systemPromptFor(this.basePrompt, agent, agent.run.policy);
    return agent.definition ? definedAgentsPart().withDefinitionPrompt(prompt, agent.definition) : prompt;
  }
}
