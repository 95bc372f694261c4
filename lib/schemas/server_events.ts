// Placeholder until the crawler-hit issue lands: its zod schemas and OpenAPI paths go here.
export const serverEventsPaths: Record<string, unknown> = {};
