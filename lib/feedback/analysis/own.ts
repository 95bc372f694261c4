/**
 * A word table's entry for a key from input: only the table's own entries. Plain objects also answer
 * "constructor", "toString" or "__proto__" from Object.prototype, which turned a review's sentiment into NaN.
 */
export const own = <T>(table: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;
