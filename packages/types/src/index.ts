// Public surface of @svc/types: the API contract of every service, as zod schemas.
export * from './constants.js';
export * from './common.js';
export * from './auth.js';
export * from './app-store.js';
export * from './app-moderation.js';
export * from './sites.js';
export * from './site-url.js';
export * from './chat.js';
export * from './internal.js';
export * from './data-export.js';
export * from './translate.js';
export * from './events.js';
export * from './endpoints.js';
export * from './text.js';
export * from './text-schema.js';
