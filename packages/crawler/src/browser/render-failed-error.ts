/** Chromium could not render a page: timeout, crash, or a navigation error Chromium raised itself. */
export class RenderFailedError extends Error {
  readonly code = 'RENDER_FAILED';

  constructor(
    readonly url: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Rendering ${url} failed: ${detail}`, options);
    this.name = 'RenderFailedError';
  }
}
