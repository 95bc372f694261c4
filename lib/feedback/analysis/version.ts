/** The analysis's version, stored with each review's analysis; apart from analyze.ts so readers need not load it. */
export const ANALYSIS_VERSION = 6;
