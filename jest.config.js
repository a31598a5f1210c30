/**
 * Jest configuration. TypeScript is compiled by @swc/jest (no type checking here: `npm test`
 * runs `tsc --noEmit` first). globalSetup/globalTeardown are TypeScript too: Jest runs them
 * through the same transform.
 *
 * globalSetup starts one Temporal dev server and one FerretDB for the whole run (unless
 * TEMPORAL_ADDRESS / MONGODB_URI are already set) and exports TEMPORAL_ADDRESS, MONGODB_URI
 * and TEMPORAL_TEST_SERVER_PATH to the test workers.
 *
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.tsx?$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: false, decorators: false },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
    '/node_modules/jose/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // jose 6 ships ES modules only (issue 12 §3): its files are compiled to CommonJS like ours.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'json'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summaryReporter.js'],
  globalSetup: '<rootDir>/test/globalSetup.ts',
  globalTeardown: '<rootDir>/test/globalTeardown.ts',
};
