// The audit log (docs/decisions/009-moderation-audit-log.md): entry builders and the store.
export * from './entry.js';
export * from './store.js';
