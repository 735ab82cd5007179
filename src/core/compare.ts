/**
 * Order of strings by UTF-16 code unit, the order of `<`. For learning, tier and domain names (`[a-z0-9-]`) it is
 * the order `localeCompare` gives, at a fraction of the cost: sorting 10,000 names with `localeCompare` goes
 * through ICU for every comparison (~20 ms on the bench machine), `<` does not, and it does not depend on the locale.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
