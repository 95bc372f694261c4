/** The analysis's version, stored with each review's analysis; apart from analyze.ts so readers need not load it. */
export const ANALYSIS_VERSION = 7; // 7: words named like Object members ("constructor") no longer read as NaN
