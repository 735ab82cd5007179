/** Every user-facing sentence, as functions of data. */
export * from './errors.js'
export * from './lifecycle.js'
