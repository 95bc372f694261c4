/** Where the SDK reports its own trouble. Messages never contain the server key or any client address. */
export interface Logger {
  warn(message: string): void;
  error(message: string): void;
}

export const PREFIX = "[@svc/server-sdk]";

export const consoleLogger: Logger = {
  warn: (message) => console.warn(`${PREFIX} ${message}`),
  error: (message) => console.error(`${PREFIX} ${message}`),
};
