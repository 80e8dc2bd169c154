// Jest settings shared by the workspace (CommonJS, as Jest loads it before any transform).
// eslint-disable-next-line @typescript-eslint/no-require-imports
module.exports = { ...require('../jest.preset.cjs') };
