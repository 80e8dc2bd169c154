// CommonJS because Jest loads its config with require(); the preset lives at the workspace root.
module.exports = { ...require('../../jest.preset.cjs') };
