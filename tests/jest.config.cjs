// Jest settings shared by the workspace (CommonJS, as Jest loads it before any transform).
module.exports = { ...require('../jest.preset.cjs') };
