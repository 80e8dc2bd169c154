// One tools/call: find the tool, check its arguments against its inputSchema, carry it out
// as its REST request, and turn the answer into the tool's result. An unknown tool and
// arguments that do not fit are the caller's protocol errors (JSON-RPC "invalid params");
// everything the API answers, refusals included, is the tool's result.
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool } from '@svc/discovery';
import type { ArgumentCheck } from '../domain/argument-check.js';
import { restRequestOf } from '../domain/rest-request.js';
import { toolResultOf, unreachableResult } from '../domain/tool-result.js';
import { RestUnreachable, type Caller, type RestApi } from '../clients/rest-api.js';

/** A tool with the service that owns its endpoint and the check of its arguments. */
export interface RunnableTool {
  tool: AgentTool;
  service: string;
  check: ArgumentCheck;
}

/**
 * JSON-RPC "invalid params", answered with the message as it stands. (The SDK's McpError
 * prefixes its message with "MCP error -32602:", which its client then prefixes again.)
 */
export class InvalidParams extends Error {
  override name = 'InvalidParams';
  readonly code = ErrorCode.InvalidParams;
  constructor(
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type CallTool = (name: string, args: Record<string, unknown> | undefined, caller: Caller) => Promise<CallToolResult>;

export function createCallTool(deps: { tools: ReadonlyMap<string, RunnableTool>; rest: RestApi }): CallTool {
  return async (name, args = {}, caller) => {
    const runnable = deps.tools.get(name);
    if (!runnable)
      throw new InvalidParams(`Unknown tool: ${name}. The tools are ${[...deps.tools.keys()].join(', ')}.`);
    const problems = runnable.check(args);
    if (problems.length > 0)
      throw new InvalidParams(`Invalid arguments for tool ${name}: ${problems.join('; ')}`, { problems });
    try {
      const answer = await deps.rest.call(runnable.service, restRequestOf(runnable.tool, args), caller);
      return toolResultOf(name, answer);
    } catch (err) {
      if (err instanceof RestUnreachable) return unreachableResult(err.message);
      throw err;
    }
  };
}
