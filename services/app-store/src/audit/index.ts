// The audit log (docs/decisions.md §9): entry builders and the store.
export * from './entry.js';
export * from './store.js';
