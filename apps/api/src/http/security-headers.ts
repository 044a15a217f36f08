import helmet from 'helmet';
import type { RequestHandler } from 'express';

export interface SecurityHeaderOptions {
  /** Extra style sources a page needs (Bull Board links a Google font stylesheet). */
  styleSrc?: string[];
  fontSrc?: string[];
}

/**
 * Security headers (helmet) for the service's responses and HTML pages: a Content-Security-Policy that allows
 * scripts only from the service itself (no inline script, no eval), refuses framing (frame-ancestors 'none', also
 * X-Frame-Options DENY), `X-Content-Type-Options: nosniff`, no referrer leaks across origins. Inline styles stay
 * allowed: the pages and Bull Board use them, and they cannot run code.
 */
export function securityHeaders(options: SecurityHeaderOptions = {}): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'", ...(options.styleSrc ?? [])],
        fontSrc: ["'self'", 'data:', ...(options.fontSrc ?? [])],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    // Served over plain HTTP in development; a TLS proxy in front sets HSTS for its own domain.
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
  }) as RequestHandler;
}
