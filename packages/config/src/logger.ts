import pino, { type LevelWithSilentOrString, type Logger } from 'pino';

/** Secrets never reach the log, whatever object a caller hands over. */
const REDACT = [
  'password',
  'key',
  'token',
  '*.password',
  '*.key',
  '*.token',
  'authorization',
  'cookie',
  '*.authorization',
  '*.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(config: { logLevel: LevelWithSilentOrString }, name: string): Logger {
  return pino({ name, level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } });
}

export type { Logger };
