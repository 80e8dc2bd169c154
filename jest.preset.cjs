// Shared Jest settings: ESM TypeScript through @swc/jest (see the root README, "Working on it").
// Run with `node --experimental-vm-modules` (each package's test script does).
const path = require('node:path');

module.exports = {
  reporters: ['default', path.join(__dirname, 'scripts/jest-summary-reporter.cjs')],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // Workspace packages export their TypeScript sources under the "development" condition.
  testEnvironmentOptions: { customExportConditions: ['development', 'node', 'node-addons'] },
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
  testTimeout: 30000,
};
