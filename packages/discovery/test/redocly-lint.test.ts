// The served OpenAPI document passes `@redocly/cli lint` with the `recommended` ruleset:
// no errors, and only the warnings we accept (listed with the reason).
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildDiscoveryDocuments } from '../src/documents.js';

const REDOCLY = fileURLToPath(new URL('../node_modules/.bin/redocly', import.meta.url));

/** Warnings of `recommended` this API triggers on purpose. */
const ACCEPTED_WARNINGS = new Set([
  // No licence is declared for this API; inventing one would be wrong.
  'info-license',
  // Endpoints that cannot fail with a 4xx (tag list, discovery documents, logout...).
  'operation-4xx-response',
  // GET /api/ws answers 101 (WebSocket upgrade), never a 2xx.
  'operation-2xx-response',
]);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{
    ruleId: string;
    severity: string;
    message: string;
    location: Array<{ pointer: string }>;
  }>;
}

async function lint(text: string): Promise<LintReport> {
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, text);
    const { stdout } = await promisify(execFile)(
      REDOCLY,
      ['lint', file, '--extends=recommended', '--format=json'],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' })); // exit 1 on errors: read the report anyway
    return JSON.parse(stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('redocly lint (recommended)', () => {
  it('finds no error in /openapi.json and only accepted warnings', async () => {
    const openapi = buildDiscoveryDocuments({ baseUrl: 'https://svc.test' }).find(
      (d) => d.path === '/openapi.json',
    )!;
    const report = await lint(openapi.body.toString('utf8'));
    const errors = report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    const unexpected = report.problems
      .filter((p) => !ACCEPTED_WARNINGS.has(p.ruleId))
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
    expect(unexpected).toEqual([]);
  }, 60_000);

  it('does report errors (the check can fail)', async () => {
    const broken = {
      openapi: '3.1.0',
      info: { title: 'x', version: '1' },
      paths: { '/a/{id}': { get: { responses: { 200: { description: 'ok' } } } } },
    };
    const report = await lint(JSON.stringify(broken));
    expect(report.totals.errors).toBeGreaterThan(0);
    expect(report.problems.map((p) => p.ruleId)).toContain('path-parameters-defined');
  }, 60_000);
});
