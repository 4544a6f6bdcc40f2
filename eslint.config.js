// ESLint's flat config: the recommended JavaScript and typescript-eslint rules (not type-aware), with
// eslint-config-prettier last so that no rule argues with prettier's formatting.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Built output, the golden and fixture trees (data, never reformatted), and local scratch folders.
  globalIgnores(['dist/', 'golden/', 'fixtures/', 'bench/out/', 'bench/base-dist/', '.nodectl/', '.scratch/', 'tmp/']),
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // A leading underscore marks a parameter or destructured key that is unused on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // The code groups a branch's statements as one comma expression on purpose: `if (x) (a(), b());`.
      '@typescript-eslint/no-unused-expressions': 'off',
      // Control characters in regexes are deliberate: they strip them from text, urls, XML and markdown.
      'no-control-regex': 'off',
      // A `let` that a closure reads before its one assignment (a resolver set up before the app exists) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `interface Options extends Base {}` names a public options type the SDK may grow.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // The web console runs in the browser (src/console/tsconfig.json), not in Node.
    files: ['src/console/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/**'],
    // Test helpers type parsed JSON bodies as `any` on purpose, so assertions read fields without casts.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
);
