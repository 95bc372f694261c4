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

/** Wraps a caller's logger so that a logger that throws can never break the host or the sender. */
export function safeLogger(logger: Logger): Logger {
  return {
    warn(message) {
      try {
        logger.warn(message);
      } catch {
        // a broken logger is not our host's problem
      }
    },
    error(message) {
      try {
        logger.error(message);
      } catch {
        // as above
      }
    },
  };
}
