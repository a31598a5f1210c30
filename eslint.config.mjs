// ESLint flat config (issue 11 §3): typescript-eslint with type information, an import-cycle rule and the
// layer rules that keep the architecture readable from the folders:
//   workflows/   deterministic code: @temporalio/workflow, other workflow files, pure domain modules, types only
//   activities/  I/O behind narrow ports: never route code nor the API's Temporal client layer
//   src/domain/  the rules of the business, pure functions: no I/O (no database, HTTP, Temporal client, file system)
//   src/products/ product content (generators, templates, micro catalogue): pure, may use src/domain, never the reverse
//   src/routes/  handlers read the request through their operation's gate, never ctx.params (issue 27 §1)
// Formatting is Prettier's (`prettier --check .`); eslint-config-prettier turns off the rules that would fight it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';

/** Modules that do I/O or are not deterministic: never in workflow or domain code (type imports excepted). */
const IO_MODULES = [
  'mongodb',
  'koa',
  '@koa/*',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
  'node:*',
  'fs',
  'path',
  'crypto',
  'http',
  'https',
  'net',
  'child_process',
  'viem',
  'viem/*',
  '@x402/*',
  '@modelcontextprotocol/*',
  'rate-limiter-flexible',
  'jose',
];

const restrictIo = (message, allowed = []) =>
  IO_MODULES.filter((name) => !allowed.includes(name)).map((name) => ({
    group: [name],
    message,
    allowTypeImports: true,
  }));

/**
 * The patterns of a pure zone (src/domain, src/products): no I/O module but node:crypto's hashes (pure functions of
 * their input: checksums, derived ids), and no layer above it (type imports are fine).
 */
const restrictPure = (zone, layersAbove) => [
  ...restrictIo(`${zone}: no I/O modules (import type is fine)`, ['node:*']),
  { group: ['node:*', '!node:crypto'], message: `${zone}: no I/O modules`, allowTypeImports: true },
  {
    group: ['**/src/db', '**/db', '**/repos/**', '**/routes/**', '**/http/**', ...layersAbove],
    message: `${zone}: it imports no layer above it`,
    allowTypeImports: true,
  },
];

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', '.data/', 'coverage/', 'test/fixtures/histories/', '**/*.js', '**/*.mjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: it imports workflow-safe code only.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...restrictIo('workflow code is deterministic: no I/O modules (import type is fine)'),
            {
              group: ['**/activities', '**/activities/**', '**/src/repos/**', '**/src/routes/**', '**/src/http/**'],
              message: 'workflows call activities through proxyActivities; import their types only',
              allowTypeImports: true,
            },
            {
              group: ['**/src/db', '**/src/config', '**/src/temporal/**', '**/src/services/**', '**/src/storage/**'],
              message: 'workflows import only workflow-safe modules; import types only',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Activities are I/O behind ports: they never reach up into HTTP routes or the API's Temporal client layer.
    files: ['activities/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/routes', '**/src/routes/**', '**/src/http/**', '**/src/temporal/**', 'koa', '@koa/*'],
              message: 'activities never import route or HTTP code, nor the Temporal client layer: take a port',
            },
          ],
        },
      ],
    },
  },
  {
    // The domain is pure: no database, HTTP, Temporal or file system.
    files: ['src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...restrictPure('src/domain is pure', ['**/temporal/**', '**/activities/**', '**/workflows/**']),
            {
              group: ['**/products', '**/products/**'],
              message: 'the rules of the business do not depend on product content (src/products imports src/domain)',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Product content (issue 27 §3): deliverable generators, templates, the micro catalogue. Pure like the domain;
    // it may use the domain's rules and the text generator's port, nothing above.
    files: ['src/products/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: restrictPure('src/products is content', [
            '**/temporal/**',
            '**/services/**',
            '**/activities/**',
            '**/workflows/**',
          ]),
        },
      ],
    },
  },
  {
    // Route code reads the request through its operation's gate (issue 27 §1, src/routes/operation.ts): parsed,
    // typed parts and the loaded resource, never the raw path parameters (loaders look ids up through `raw`).
    files: ['src/routes/**/*.ts'],
    ignores: ['src/routes/operation.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='params'][object.name=/^(ctx|context)$/]",
          message:
            'Route handlers take the parsed `input.params` (or the loaded resource) from their operation gate, not ctx.params',
        },
        {
          selector: "MemberExpression[property.name='params'][object.property.name=/^(ctx|context)$/]",
          message:
            'Route handlers take the parsed `input.params` (or the loaded resource) from their operation gate, not ctx.params',
        },
      ],
    },
  },
  {
    // Tests and scripts assert and drive; looser typing of fixtures is fine there.
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  prettier,
);
