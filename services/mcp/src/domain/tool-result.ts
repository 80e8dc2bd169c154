// The REST answer of a tool's call as the tool's MCP result. A success is the API's JSON,
// both as `structuredContent` (the tool's outputSchema) and as text for clients that read
// only text. Every refusal of the API is a tool error (`isError: true`) carrying the API's
// own message, so the agent reads what REST callers read and can correct itself or wait.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface RestAnswer {
  status: number;
  /** The `Retry-After` header, when the answer has one. */
  retryAfter?: string;
  /** The parsed JSON body (undefined when there is none or it is not JSON). */
  json: unknown;
}

/** What a tool's refusal adds to the API's message, by tool and status. */
const HINTS: Record<string, Record<number, string>> = {
  submit_site: {
    403:
      'This deployment checks a CAPTCHA on submissions: pass captchaToken, a token the CAPTCHA widget of the web client’s submit form gives a person after the check. An agent cannot obtain one by itself: ask the user to submit the site there, or to hand you a token.',
  },
};

export function toolResultOf(tool: string, answer: RestAnswer, now: Date = new Date()): CallToolResult {
  const { status, json } = answer;
  if (status >= 200 && status < 300) {
    if (isRecord(json)) return { content: [{ type: 'text', text: JSON.stringify(json) }], structuredContent: json };
    return failure(`The API answered ${status} without a JSON object; nothing to return.`, { status });
  }
  const apiError = errorOf(json) ?? `HTTP ${status}`;
  const retryAfterSeconds = retryAfterOf(answer.retryAfter, now);
  const wait = retryAfterSeconds === undefined ? '' : ` Retry after ${retryAfterSeconds} s (at ${new Date(now.getTime() + retryAfterSeconds * 1000).toISOString()}).`;
  const meta = { status, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
  if (status === 429) return failure(`Rate limit reached: ${apiError} (429).${wait || ' Retry later.'}`, meta);
  if (status >= 500) return failure(`The service could not answer: ${apiError} (${status}).${wait || ' Try again later.'}`, meta);
  const details = detailsOf(json);
  const hint = HINTS[tool]?.[status];
  return failure([`${apiError} (${status}).${details ? ` ${details}` : ''}`, hint].filter(Boolean).join(' '), meta);
}

/** A tool error that is not an answer of the API (it could not be reached in time). */
export function unreachableResult(reason: string): CallToolResult {
  return failure(`The service could not be reached (${reason}). Try again later.`, { status: 503 });
}

function failure(text: string, meta: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: meta };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function errorOf(json: unknown): string | undefined {
  return isRecord(json) && typeof json.error === 'string' && json.error !== '' ? json.error : undefined;
}

/** The API's validation issues (zod's `details`), one short clause each. */
function detailsOf(json: unknown): string | undefined {
  if (!isRecord(json) || !Array.isArray(json.details)) return undefined;
  const clauses = json.details
    .filter(isRecord)
    .map((issue) => {
      const path = Array.isArray(issue.path) ? issue.path.join('.') : '';
      const message = typeof issue.message === 'string' ? issue.message : 'invalid';
      return path ? `${path}: ${message}` : message;
    });
  return clauses.length > 0 ? `${clauses.join('; ')}.` : undefined;
}

/** Seconds to wait from a `Retry-After` header (delay-seconds or an HTTP date). */
export function retryAfterOf(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
