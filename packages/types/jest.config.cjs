// CommonJS because Jest loads its config with require(); the preset lives at the workspace root.
// eslint-disable-next-line @typescript-eslint/no-require-imports
module.exports = { ...require('../../jest.preset.cjs') };
