// Placeholder until the read-side issue lands: its OpenAPI paths go here.
export const readPaths: Record<string, unknown> = {};
