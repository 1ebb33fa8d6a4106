// Flat config: typescript-eslint's strict rules with type information, so `any` and
// floating promises are errors rather than review comments; and the import boundaries the
// README's layout section states, so that they hold by a failing lint rather than discipline.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importBoundaries } from './eslint.boundaries.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'charts/**', '.tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...importBoundaries,
);
