interface WarnLogger {
  warn(fields: object, message: string): void;
}

/** Redis reconnects report an error every attempt; one line per source every interval is enough to see an outage. */
export function throttledErrorLog(
  logger: WarnLogger,
  message: string,
  intervalMs = 10_000,
): (error: Error, source: string) => void {
  const lastLogged = new Map<string, number>();
  return (error, source) => {
    const now = Date.now();
    if (now - (lastLogged.get(source) ?? -Infinity) < intervalMs) return;
    lastLogged.set(source, now);
    logger.warn({ source, error: error.message }, message);
  };
}
