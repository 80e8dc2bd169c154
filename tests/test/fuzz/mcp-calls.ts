// The agent tools' inputs through the MCP server: fast-check builds tool calls from each
// tool's listed inputSchema (valid arguments with real slugs and tokens, and mutated ones:
// a nasty string, a wrong type, an unknown or missing argument) and sends them with the
// SDK's own client through the gateway. Every call must end as an MCP client expects: a
// tool result (without a 5xx behind it, and for a success one the client validated against
// the outputSchema) or a JSON-RPC "invalid params" error, and arguments the schema accepts
// are never refused as invalid. Anything else (a transport failure, an internal error, no
// answer) is a problem.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { arbitraryOf, type JsonSchema, type Override } from './arbitraries.js';
import { NASTY_STRINGS, ODD_KEYS, WRONG_TYPES } from './mutations.js';
import type { World } from './world.js';

export interface ToolCall {
  tool: string;
  /** `valid` or `mutated: <what was broken>`. */
  variant: string;
  arguments: Record<string, unknown>;
  /** X-Forwarded-For of the agent (one client per address). */
  ip: string;
}

export interface ListedTool {
  name: string;
  inputSchema: JsonSchema;
}

/** Real values of arguments that name something, so valid calls find it. */
function realValues(world: World, name: string): unknown[] | undefined {
  if (name === 'slug') return world.allSlugs;
  if (name === 'captchaToken') return [world.captchaToken];
  if (name === 'url') return [world.websiteUrl('/fuzz/mcp'), 'https://example.com/', 'not a url'];
  // A cursor comes only from an earlier answer, so a valid call mostly goes without one
  // (undefined: left out of the JSON); numbered pages stop at 166.
  if (name === 'cursor') return [undefined];
  if (name === 'page') return [1, 2, 166, 167];
  return undefined;
}

function validArguments(tool: ListedTool, world: World): fc.Arbitrary<Record<string, unknown>> {
  const override: Override = (path) => {
    if (path.length !== 1) return undefined;
    const real = realValues(world, path[0]!);
    const field = tool.inputSchema.properties?.[path[0]!];
    return real && field ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: arbitraryOf(field) }) : undefined;
  };
  return arbitraryOf(tool.inputSchema, override) as fc.Arbitrary<Record<string, unknown>>;
}

/** One argument broken: a nasty string or a wrong type in it, an unknown one, a missing one. */
function mutatedArguments(tool: ListedTool, world: World): fc.Arbitrary<{ what: string; args: Record<string, unknown> }> {
  const names = Object.keys(tool.inputSchema.properties ?? {});
  const required = tool.inputSchema.required ?? [];
  const choices: fc.Arbitrary<{ what: string; args: Record<string, unknown> }>[] = [
    fc.tuple(validArguments(tool, world), fc.constantFrom(...ODD_KEYS), fc.constantFrom(...WRONG_TYPES, ...NASTY_STRINGS)).map(([args, key, value]) => ({
      what: `unknown argument ${JSON.stringify(key)}`,
      args: Object.defineProperty({ ...args }, key, { value, enumerable: true, configurable: true, writable: true }),
    })),
  ];
  if (names.length > 0) {
    choices.push(
      fc.tuple(validArguments(tool, world), fc.constantFrom(...names), fc.constantFrom(...NASTY_STRINGS)).map(([args, name, value]) => ({
        what: `nasty ${name}`,
        args: { ...args, [name]: value },
      })),
      fc.tuple(validArguments(tool, world), fc.constantFrom(...names), fc.constantFrom(...WRONG_TYPES)).map(([args, name, value]) => ({
        what: `${name} of another type`,
        args: { ...args, [name]: value },
      })),
    );
  }
  if (required.length > 0)
    choices.push(
      fc.tuple(validArguments(tool, world), fc.constantFrom(...required)).map(([args, name]) => {
        const { [name]: _dropped, ...rest } = args;
        return { what: `no ${name}`, args: rest };
      }),
    );
  return fc.oneof(...choices);
}

const ip: fc.Arbitrary<string> = fc.oneof(fc.ipV4(), fc.ipV6());

export function toolCallArbitrary(tool: ListedTool, world: World): fc.Arbitrary<ToolCall> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.tuple(validArguments(tool, world), ip).map(([args, at]): ToolCall => ({ tool: tool.name, variant: 'valid', arguments: args, ip: at })) },
    {
      weight: 1,
      arbitrary: fc.tuple(mutatedArguments(tool, world), ip).map(([m, at]): ToolCall => ({ tool: tool.name, variant: `mutated: ${m.what}`, arguments: m.args, ip: at })),
    },
  );
}

export interface McpOutcome {
  /** `result <status>`, `result ok` or `invalid params`: what the call ended as. */
  ending: string | undefined;
  problems: string[];
}

/** Sends tool calls with the SDK's client, one connected client per agent address. */
export function createMcpRunner(options: { baseUrl: string; timeoutMs?: number }) {
  const timeout = options.timeoutMs ?? 15_000;
  const clients = new Map<string, Promise<Client>>();
  const endings = new Map<string, string[]>();

  const clientFor = (at: string) => {
    let client = clients.get(at);
    if (!client) {
      const c = new Client({ name: 'svc-contract-fuzz', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${options.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-forwarded-for': at } },
      });
      client = c.connect(transport, { timeout }).then(() => c);
      clients.set(at, client);
    }
    return client;
  };

  async function run(call: ToolCall): Promise<McpOutcome> {
    const problems: string[] = [];
    let ending: string | undefined;
    try {
      const client = await clientFor(call.ip);
      const result = (await client.callTool({ name: call.tool, arguments: call.arguments }, undefined, { timeout })) as CallToolResult;
      const status = (result._meta as { status?: number } | undefined)?.status;
      ending = result.isError ? `result ${status}` : 'result ok';
      if (result.isError && (status === undefined || status >= 500)) problems.push(`a tool error with status ${status}: ${JSON.stringify(result.content)}`);
      if (!result.isError && result.structuredContent === undefined) problems.push('a success without structuredContent');
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
        ending = 'invalid params';
        if (call.variant === 'valid') problems.push(`arguments the inputSchema accepts were refused: ${error.message}`);
      } else {
        problems.push(`the call failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
    }
    if (ending) endings.set(call.tool, [...(endings.get(call.tool) ?? []), ending]);
    return { ending, problems };
  }

  return {
    run,
    /** How the calls of each tool ended. */
    endings: () => endings,
    async close() {
      await Promise.all([...clients.values()].map((c) => c.then((client) => client.close(), () => undefined)));
    },
  };
}
export type McpRunner = ReturnType<typeof createMcpRunner>;
