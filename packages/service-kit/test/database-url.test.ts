import { describe, expect, it } from '@jest/globals';
import { databaseTargetToUrl, resolveDatabaseTarget } from '../src/data/database-url.js';

describe('resolveDatabaseTarget', () => {
  it('uses the shared URL with the service schema by default', () => {
    const t = resolveDatabaseTarget(undefined, 'postgresql://u:p%40ss@db:5433/main', 'app_store');
    expect(t).toEqual({ host: 'db', port: 5433, user: 'u', password: 'p@ss', database: 'main', schema: 'app_store' });
  });

  it('uses the service URL (public schema) when ops give the service its own database', () => {
    const t = resolveDatabaseTarget('postgresql://postgres@other/appdb', 'postgresql://x@y/z', 'app_store');
    expect(t.database).toBe('appdb');
    expect(t.schema).toBe('public');
  });

  it('honours ?schema= and round-trips through a URL', () => {
    const t = resolveDatabaseTarget(undefined, 'postgresql://postgres@127.0.0.1:5432/svc?schema=custom', 'auth');
    expect(t.schema).toBe('custom');
    expect(resolveDatabaseTarget(databaseTargetToUrl(t), undefined, 'x')).toEqual(t);
  });

  it('refuses other protocols', () => {
    expect(() => resolveDatabaseTarget('mysql://a/b', undefined, 'x')).toThrow(/PostgreSQL/);
  });
});
