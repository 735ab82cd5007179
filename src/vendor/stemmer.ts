/**
 * wink-porter2-stemmer (Porter2, the English Snowball stemmer), re-exported so that every import of it goes through
 * this module: `npm run build` replaces dist/vendor/stemmer.js with a one-file bundle (scripts/bundle-vendor.mjs).
 */
import stem from 'wink-porter2-stemmer'

export const porter2 = stem
