// Component names come from the export names of @svc/types.
import { describe, expect, it } from '@jest/globals';
import { AppDetailResponse, ENDPOINTS, Site, SiteSort, findEndpoint } from '@svc/types';
import { componentSchemas } from '../src/schema-names.js';

describe('componentSchemas', () => {
  const all = componentSchemas(ENDPOINTS);

  it('names records and enums after their exports, nested ones included', () => {
    expect(all.Site).toBe(Site);
    expect(all.SiteSort).toBe(SiteSort);
    expect(Object.keys(all)).toEqual(
      expect.arrayContaining(['ChatMessage', 'AuthUser', 'AppCategory', 'Bookmark']),
    );
  });

  it('keeps the first name in alphabetical order for a schema exported twice', () => {
    // UpdateAppResponse is AppDetailResponse under a second name.
    expect(all.AppDetailResponse).toBe(AppDetailResponse);
    expect(all.UpdateAppResponse).toBeUndefined();
  });

  it('does not turn path or query objects into components', () => {
    expect(all.SiteListQuery).toBeUndefined();
    expect(all.AppSlugParams).toBeUndefined();
    expect(Object.keys(componentSchemas([findEndpoint('GET', '/api/sites')!]))).toEqual(
      expect.arrayContaining(['SiteListResponse', 'Site', 'SiteTag', 'SiteSort', 'ErrorResponse']),
    );
  });
});
