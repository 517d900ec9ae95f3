/** One day in milliseconds: UTC days are counted as `Math.floor(ms / DAY_MS)`. */
export const DAY_MS = 24 * 60 * 60 * 1000;
