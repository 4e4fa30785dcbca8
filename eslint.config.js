// One linter and formatter: ESLint with typescript-eslint's recommended rules and @stylistic for
// formatting. (Biome was the first choice, but its platform binaries are not all on the registry
// this project installs from, which breaks `npm ci`.)
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dist/', 'coverage/', 'bench/results/', 'dashboard/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  stylistic.configs.customize({ indent: 2, quotes: 'single', semi: true, arrowParens: true, braceStyle: '1tbs' }),
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@stylistic/max-len': ['error', { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true, ignoreComments: true }],
      '@stylistic/operator-linebreak': ['error', 'after', { overrides: { '?': 'before', ':': 'before' } }],
      '@stylistic/quote-props': ['error', 'as-needed'],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  // Dependencies point one way: lambda/ (runtime) and lib/ (infrastructure) both depend on contracts/,
  // never lambda/ on anything in lib/ (lib/config's zod schema would land in the bundles). Within
  // lambda/, a capability uses another one through its public module (lambda/<capability>/index.ts)
  // only; lambda/shared is open to all.
  {
    files: ['lambda/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'aws-cdk-lib', message: 'Lambda code is runtime code: no CDK.' }, { name: 'constructs', message: 'Lambda code is runtime code: no CDK.' }],
        patterns: [
          { group: ['aws-cdk-lib/*'], message: 'Lambda code is runtime code: no CDK.' },
          { regex: '^(\\.\\./)+lib/', message: 'lambda/ imports nothing from lib/ (infrastructure and its zod config): move what both need to contracts/.' },
          {
            regex: '^\\.\\./(?!shared/|\\.\\./)[^/]+/(?!index\\.js$)',
            message: 'Another capability is reached through its public module only: import from \'../<capability>/index.js\' (export what you need there).',
          },
        ],
      }],
    },
  },
  // The control API's handler (lambda/control) is a composition root, like local/: it wires the
  // services and adapters of every capability, which their public modules leave out so that the
  // request-path bundles stay small. Only the capability rule is lifted here.
  {
    files: ['lambda/control/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'aws-cdk-lib', message: 'Lambda code is runtime code: no CDK.' }, { name: 'constructs', message: 'Lambda code is runtime code: no CDK.' }],
        patterns: [
          { group: ['aws-cdk-lib/*'], message: 'Lambda code is runtime code: no CDK.' },
          { regex: '^(\\.\\./)+lib/', message: 'lambda/ imports nothing from lib/ (infrastructure and its zod config): move what both need to contracts/.' },
        ],
      }],
    },
  },
  // lambda/shared is what every capability builds on, so it depends on none of them.
  {
    files: ['lambda/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'aws-cdk-lib', message: 'Lambda code is runtime code: no CDK.' }, { name: 'constructs', message: 'Lambda code is runtime code: no CDK.' }],
        patterns: [
          { group: ['aws-cdk-lib/*'], message: 'Lambda code is runtime code: no CDK.' },
          { regex: '^(\\.\\./)+lib/', message: 'lambda/ imports nothing from lib/ (infrastructure and its zod config): move what both need to contracts/.' },
          { regex: '^\\.\\./(?!\\.\\./)', message: 'lambda/shared depends on no capability: move the code to the capability that needs it.' },
        ],
      }],
    },
  },
  // contracts/ is the neutral module both sides import: plain TypeScript, no CDK, no runtime code.
  {
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'aws-cdk-lib', message: 'contracts/ is plain data and functions: no CDK.' }, { name: 'constructs', message: 'contracts/ is plain data and functions: no CDK.' }],
        patterns: [
          { group: ['aws-cdk-lib/*'], message: 'contracts/ is plain data and functions: no CDK.' },
          { group: ['**/lambda/**'], message: 'contracts/ depends on nothing of the infrastructure or the runtime: they depend on it.' },
          { regex: '^(\\.\\./)+lib/', message: 'contracts/ depends on nothing of the infrastructure or the runtime: they depend on it.' },
          { group: ['zod', 'zod/v4', 'zod/v4/classic'], message: 'contracts/ is read by the request-path functions: no zod classic (zod/mini at most).' },
        ],
      }],
    },
  },
  // The dashboard runs in the browser: same rules, browser globals instead of Node's (its Vite
  // config runs in Node).
  {
    files: ['dashboard/**/*.{ts,tsx}'],
    ignores: ['dashboard/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser } },
    // One JSX expression per line would split every sentence with a link or a value in it.
    rules: { '@stylistic/jsx-one-expression-per-line': 'off' },
  },
);
