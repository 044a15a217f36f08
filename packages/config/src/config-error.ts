/** Thrown at boot for an invalid environment; its message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
