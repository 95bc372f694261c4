/** Kept equal to package.json "version" (a test checks). */
export const SDK_NAME = "@svc/server-sdk";
export const SDK_VERSION = "0.1.0";
