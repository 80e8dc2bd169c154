// .env.example lists exactly the settings the config.ts schemas declare, and is what
// scripts/env-example.mjs writes from them: a setting added to a schema without
// regenerating it, or a name left behind after one is removed, fails here.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processConfigFiles, settingNames } from '../../scripts/config-settings.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENV_EXAMPLE = readFileSync(path.join(ROOT, '.env.example'), 'utf8');

/** A setting line: `NAME=value`, or `# NAME=value` for one left at its default. */
const SETTING_LINE = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/;

function namesIn(text: string): string[] {
  return text.split('\n').flatMap((line) => {
    const m = SETTING_LINE.exec(line);
    return m ? [m[2]!] : [];
  });
}

/** What is wrong with `text` as the list of `settings`: names missing, names that are no setting. */
function problems(settings: Iterable<string>, text: string) {
  const listed = new Set(namesIn(text));
  const declared = new Set(settings);
  return {
    missing: [...declared].filter((name) => !listed.has(name)).sort(),
    notSettings: [...listed].filter((name) => !declared.has(name)).sort(),
  };
}

describe('.env.example', () => {
  const declared = settingNames(ROOT);

  it('finds every process config file by pattern', () => {
    const files = processConfigFiles(ROOT);
    for (const file of [
      'gateway/src/config.ts',
      'services/auth/src/config.ts',
      'services/web/server/config.ts',
    ])
      expect(files).toContain(file);
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(declared.size).toBeGreaterThan(60);
  });

  it('names every setting of the config schemas, and nothing else', () => {
    expect(problems(declared.keys(), ENV_EXAMPLE)).toEqual({ missing: [], notSettings: [] });
  });

  it('would fail on a missing setting or a name that is no setting', () => {
    const withoutLogLevel = ENV_EXAMPLE.replace(/^# LOG_LEVEL=.*\n/m, '');
    expect(withoutLogLevel).not.toBe(ENV_EXAMPLE);
    expect(problems(declared.keys(), `${withoutLogLevel}# NOT_A_SETTING=1\n`)).toEqual({
      missing: ['LOG_LEVEL'],
      notSettings: ['NOT_A_SETTING'],
    });
  });

  it('sets nothing: defaults are commented out, secrets empty', () => {
    const active = ENV_EXAMPLE.split('\n').filter((line) => {
      const m = SETTING_LINE.exec(line);
      return m !== null && m[1] === undefined && m[3] !== '';
    });
    expect(active).toEqual([]);
    // Each secret is an empty line to fill in.
    for (const secret of ['JWT_PRIVATE_KEY', 'IP_HASH_SECRET', 'INTERNAL_TOKEN', 'RESEND_API_KEY'])
      expect(ENV_EXAMPLE).toMatch(new RegExp(`^${secret}=$`, 'm'));
  });

  it('is what scripts/env-example.mjs writes from the schemas', () => {
    const run = spawnSync(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', 'scripts/env-example.mjs', '--check'],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\.env\.example matches the schemas \(\d+ settings\)/);
    expect(run.status).toBe(0);
  });
});
