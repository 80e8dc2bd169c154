// A tool's arguments against the inputSchema the server lists for it: what is advertised is
// what is enforced. Arguments that do not fit are refused before any REST call (MCP's
// "invalid params"); rules JSON Schema cannot say (a URL's form) stay with the endpoint.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type ArgumentCheck = (args: unknown) => string[];

/**
 * One check per tool, compiled once. Strict: a schema with a keyword Ajv does not know fails
 * here, at start, rather than being silently ignored.
 */
export function compileArgumentChecks(tools: readonly { name: string; inputSchema: object }[]): Map<string, ArgumentCheck> {
  const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
  return new Map(
    tools.map((tool) => {
      const validate = ajv.compile(tool.inputSchema);
      return [tool.name, (args: unknown) => problemsOf(validate, args)];
    }),
  );
}

function problemsOf(validate: ValidateFunction, args: unknown): string[] {
  if (validate(args)) return [];
  return (validate.errors ?? []).map(describe);
}

/** `targetLang: must be one of zh-CN, en, …` — the argument first, as an agent reads it. */
function describe(error: ErrorObject): string {
  const where = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = error.params as { allowedValues?: unknown[]; additionalProperty?: string; missingProperty?: string };
  if (error.keyword === 'additionalProperties') return `${params.additionalProperty}: not an argument of this tool`;
  if (error.keyword === 'required') return `${params.missingProperty}: required`;
  const message = error.keyword === 'enum' ? `must be one of ${params.allowedValues?.join(', ')}` : (error.message ?? 'invalid');
  return where ? `${where}: ${message}` : message;
}
