import { isIP } from 'node:net';
import { forbidden } from '@docshelf/core';
import type { RequestHandler } from 'express';

export interface KnownOriginOptions {
  /** PUBLIC_HOSTS: names (optionally `name:port`) browsers reach the service by; empty = loopback names and IPs. */
  publicHosts: readonly string[];
  /** MCP_ALLOWED_ORIGINS: other sites whose pages may call. */
  allowedOrigins: readonly string[];
}

/**
 * Cross-site and DNS-rebinding guard for endpoints that answer without a credential (`/mcp` with PUBLIC_SEARCH). A
 * browser sends `Origin` with every POST, and a page of another site can point a name it owns at this server's
 * address, so that its requests arrive with its own name as `Host`. A request with `Origin` is served when that
 * origin is listed in MCP_ALLOWED_ORIGINS, or when it is this service's own origin on a `Host` the service is known
 * by: one of PUBLIC_HOSTS (an entry without a port matches every port), or, when that is empty, a loopback name or an
 * IP address (no rebinding produces those). Anything else is 403. Requests without `Origin` (agents, CLIs) pass.
 */
export function requireKnownOrigin(options: KnownOriginOptions): RequestHandler {
  return (req, _res, next) => {
    const sent = req.headers.origin;
    if (sent === undefined) return next();
    const origin = originOf(sent);
    if (origin !== undefined && options.allowedOrigins.includes(origin)) return next();
    const host = req.host.toLowerCase();
    if (origin === undefined || origin !== originOf(`${req.protocol}://${host}`)) {
      throw forbidden(
        `Origin ${sent.slice(0, 200)} may not call ${req.path}: it is neither this service's origin nor listed in MCP_ALLOWED_ORIGINS`,
      );
    }
    if (!isKnownHost(host, options.publicHosts)) {
      throw forbidden(
        `Host ${host.slice(0, 200)} is not a name this service is known by: list it in PUBLIC_HOSTS to serve browsers there`,
      );
    }
    next();
  };
}

/** `scheme://host[:port]` as browsers write it (default port dropped), or undefined for `null` and garbage. */
function originOf(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const origin = new URL(value).origin;
  return origin === 'null' ? undefined : origin;
}

const HOST_AND_PORT = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/;

function isKnownHost(host: string, publicHosts: readonly string[]): boolean {
  const match = HOST_AND_PORT.exec(host);
  if (!match) return false;
  const [, name, port] = match as unknown as [string, string, string | undefined];
  if (publicHosts.length > 0) {
    return publicHosts.some((entry) => entry === name || (port !== undefined && entry === `${name}:${port}`));
  }
  return name === 'localhost' || name.endsWith('.localhost') || isIP(name.replace(/^\[|\]$/g, '')) !== 0;
}
