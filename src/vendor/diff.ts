/**
 * The `diff` package, re-exported so that every import of it goes through this module: `npm run build` replaces
 * dist/vendor/diff.js with a one-file bundle of the package (scripts/bundle-vendor.mjs), which loads in a fraction
 * of the time Node takes to resolve and compile its many files. Under vitest this is a plain re-export.
 */
export * from 'diff'
