// Kept in step with package.json by a test.
export const VERSION = '1.1.0';
