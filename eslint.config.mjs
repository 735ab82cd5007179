// ESLint (flat config): typescript-eslint's recommended rules without type information, so a lint run stays a
// few seconds. Formatting is Prettier's job (.prettierrc.json), not ESLint's.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'man/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused code fails the build already (tsconfig noUnusedLocals/noUnusedParameters); `_name` marks a
      // parameter kept for its position.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Stripping and escaping control characters (ANSI colours, NUL in frontmatter) is what those regexes are for.
      'no-control-regex': 'off',
    },
  },
  {
    // Node scripts, benchmarks and configs run as plain JavaScript.
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        globalThis: 'readonly',
        structuredClone: 'readonly',
      },
    },
  },
)
