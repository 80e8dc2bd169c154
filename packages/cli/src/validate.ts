// Input checked against the contract's schemas before anything is sent, so a mistake is a
// usage error (exit 2) with the field named, not a round trip and a 400.
import type { z } from 'zod';
import { UsageError } from './exit-codes.js';

export function parseOrUsage<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new UsageError(`invalid ${what}:\n${formatIssues(result.error.issues)}`);
}

export function formatIssues(issues: ReadonlyArray<z.core.$ZodIssue>): string {
  return issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.map(String).join('.') : '(root)';
      return `  ${where}: ${issue.message}`;
    })
    .join('\n');
}

/** A whole number for options like --limit; commander hands over strings. */
export function integer(name: string) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value))
      throw new UsageError(`${name} must be a whole number, got "${value}"`);
    return Number(value);
  };
}
