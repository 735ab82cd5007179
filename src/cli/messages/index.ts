/** Every user-facing sentence, as functions of data. */
export * from './errors.js'
export * from './lifecycle.js'
export * from './scale.js'
export * from './feed.js'
export * from './retro.js'
export * from './guards.js'
export * from './hardening.js'
