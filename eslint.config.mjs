// Lints the TypeScript of the extension, its tests, benchmarks and webview script, and the
// plain JavaScript of the build and test scripts (`npm run lint`, part of `npm test`).
// The layer rules of ARCHITECTURE.md are enforced here, not only written down:
//   - src/core never imports 'vscode';
//   - src/extension enters the core only through its doors: src/core/index.ts and the index.ts
//     of a folder directly under src/core (core/agents, core/models, ...), never a module behind them.
// Type-aware rules (floating promises) read tsconfig.json through the TypeScript project service.
import path from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { coreDoors } from './scripts/lint/coreDoors.mjs';

const root = path.dirname(new URL(import.meta.url).pathname);

export default defineConfig(
  {
    ignores: ['node_modules/**', 'dist/**', 'out/**', 'media/dist/**', '.vscode-test/**', 'test-results/**', 'reports/**', '.stryker-tmp/**', 'demo/**', '*.vsix'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    plugins: { arbor: { rules: { 'core-doors': coreDoors } } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      // A switch over a union names every member (a `default` does not stand in for them), so a new
      // reason, event or state makes each switch that meets it decide what it means.
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/no-unused-expressions': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // `import fs = require('node:fs')` gives the module object itself, which tests observe.
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression[expression.type='TSAsExpression'][expression.typeAnnotation.type='TSUnknownKeyword']",
          message: "'as unknown as' forces a type the value may not have: parse it (zod) or type it at its source.",
        },
      ],
    },
  },
  {
    // The product and its benchmarks: no `any` reaches a value either (JSON.parse, untyped
    // libraries); it is parsed or typed where it enters. Tests may read such values loosely.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'media/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
    },
  },
  {
    // package.json says "sideEffects": false, so the bundler leaves out a module nothing uses an
    // export of (a door's other modules; see scripts/lib/bundleParts.mjs): a module of Arbor is
    // never imported only to run it.
    files: ['src/**/*.ts', 'media/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression[expression.type='TSAsExpression'][expression.typeAnnotation.type='TSUnknownKeyword']",
          message: "'as unknown as' forces a type the value may not have: parse it (zod) or type it at its source.",
        },
        { selector: 'ImportDeclaration[specifiers.length=0]', message: 'package.json says "sideEffects": false: import what the module exports, never the module only to run it.' },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: "src/core is plain Node: only src/extension imports 'vscode'." }] }],
    },
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: {
      'arbor/core-doors': 'error',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // A fixture extension loaded by the editor as CommonJS, as any extension's main file is.
    files: ['test/fixtures/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      // `const crypto = require('node:crypto')` names the module as Node's global does.
      'no-redeclare': ['error', { builtinGlobals: false }],
    },
  },
  {
    // scripts/setup.cjs runs before node_modules exists, so it is plain CommonJS and its test loads it as such.
    files: ['test/unit/tooling/setup.test.ts'],
    rules: { '@typescript-eslint/no-require-imports': ['error', { allow: ['/scripts/setup\\.cjs$'] }] },
  },
  {
    files: ['media/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
