import { randomUUID } from 'node:crypto';
import {
  AppError,
  buildContext,
  MAX_CONTEXT_TOKENS,
  MAX_QUERY_LENGTH,
  MIN_CONTEXT_TOKENS,
  packContext,
  rankLibraries,
  type RetrievalDeps,
} from '@docshelf/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { version } from '../../package.json';
import { describeGroup, existingLibrary, groupVersions } from './library-ids';

const DEFAULT_TOKENS = 5_000;
const MAX_LIBRARIES_LISTED = 10;
/** Chunks read in library order for get-library-docs without a topic: more than any budget can hold. */
const OVERVIEW_CHUNKS = 400;

/** Every tool only reads the service's own libraries. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const tokensArg = z
  .number()
  .int()
  .min(MIN_CONTEXT_TOKENS)
  .max(MAX_CONTEXT_TOKENS)
  .optional()
  .describe(
    `Most tokens of documentation to return (${MIN_CONTEXT_TOKENS}–${MAX_CONTEXT_TOKENS}, default ${DEFAULT_TOKENS})`,
  );
const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * The MCP server of one request (Streamable HTTP, stateless): Context7's tool names and arguments, so agents set up
 * for it work by changing the URL.
 */
export function createDocsMcpServer(deps: RetrievalDeps, logger: Logger): McpServer {
  const server = new McpServer({ name: 'docshelf', version });

  server.registerTool(
    'resolve-library-id',
    {
      title: 'Resolve a library ID',
      description:
        'Finds the Docshelf library ID for a package or product name. Call this first, then pass the ID to query-docs. ' +
        'Returns the best matches with their ID, name, description, version, versions and size.',
      inputSchema: {
        libraryName: text(200).describe('Library or product name to look up, e.g. "next.js" or "git"'),
        query: text(MAX_QUERY_LENGTH).optional().describe('What you want to do with it; used to break ties'),
      },
      annotations: { title: 'Resolve a library ID', ...READ_ONLY },
    },
    (args) =>
      guard(logger, async () => {
        const libraries = await deps.libraries.listLibraries();
        let matches = rankLibraries(libraries, args.libraryName);
        if (matches.length === 0 && args.query) matches = rankLibraries(libraries, `${args.libraryName} ${args.query}`);
        if (matches.length === 0) {
          return result(
            `No library matches "${args.libraryName}". ${libraries.length} libraries exist` +
              (libraries.length > 0
                ? `, e.g. ${libraries
                    .slice(0, 5)
                    .map((l) => l.id)
                    .join(', ')}.`
                : '.'),
          );
        }
        const groups = groupVersions(matches, libraries).slice(0, MAX_LIBRARIES_LISTED);
        return result(
          `Libraries matching "${args.libraryName}", best first:\n\n${groups.map(describeGroup).join('\n----------\n')}`,
        );
      }),
  );

  server.registerTool(
    'query-docs',
    {
      title: 'Query documentation',
      description:
        'Returns the documentation of one library most relevant to a question, packed into a token budget, each piece ' +
        'with its source URL, library version and fetch date. Get the library ID from resolve-library-id.',
      inputSchema: {
        libraryId: text(130).describe(
          'Library ID from resolve-library-id, e.g. "vercel/next.js", or one version of it, "vercel/next.js@15.1" ' +
            '(also "/vercel/next.js/15.1"); without a version, its newest',
        ),
        query: text(MAX_QUERY_LENGTH).describe('The question or task, in plain words'),
        tokens: tokensArg,
      },
      annotations: { title: 'Query documentation', ...READ_ONLY },
    },
    (args) =>
      guard(logger, async () => {
        const { id: libraryId } = await existingLibrary(deps, args.libraryId);
        const context = await buildContext(deps, {
          libraryId,
          query: args.query,
          tokens: args.tokens ?? DEFAULT_TOKENS,
        });
        return result(context.text || `Library '${libraryId}' has no documentation matching "${args.query}".`);
      }),
  );

  server.registerTool(
    'get-library-docs',
    {
      title: 'Get library documentation',
      description:
        'Older form of query-docs: documentation of one library, on a topic when one is given, else from its beginning, ' +
        'packed into a token budget.',
      inputSchema: {
        context7CompatibleLibraryID: text(130).describe(
          'Library ID from resolve-library-id, e.g. "vercel/next.js" or "/vercel/next.js", or one version of it, ' +
            '"vercel/next.js@15.1" or "/vercel/next.js/15.1"',
        ),
        topic: text(MAX_QUERY_LENGTH).optional().describe('Topic to focus on, e.g. "routing"'),
        tokens: tokensArg,
      },
      annotations: { title: 'Get library documentation', ...READ_ONLY },
    },
    (args) =>
      guard(logger, async () => {
        const library = await existingLibrary(deps, args.context7CompatibleLibraryID);
        const libraryId = library.id;
        const tokens = args.tokens ?? DEFAULT_TOKENS;
        if (args.topic) {
          const context = await buildContext(deps, { libraryId, query: args.topic, tokens });
          return result(context.text || `Library '${libraryId}' has no documentation matching "${args.topic}".`);
        }
        const chunks = await deps.libraries.listChunks(libraryId, { offset: 0, limit: OVERVIEW_CHUNKS });
        const packed = packContext(
          chunks.map((chunk) => ({ ...chunk, libraryId, score: 0 })),
          tokens,
          new Map([[libraryId, library.version ?? null]]),
        );
        return result(packed.text || `Library '${libraryId}' has no chunks yet.`);
      }),
  );

  return server;
}

const result = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/** A known failure becomes a tool error the agent can read; anything else is logged and reported by id only. */
async function guard(logger: Logger, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) {
      const hint = error.code === 'LIBRARY_NOT_FOUND' ? ' Call resolve-library-id to find a valid library ID.' : '';
      return { content: [{ type: 'text', text: `${error.message}.${hint}` }], isError: true };
    }
    const errorId = randomUUID();
    logger.error({ err: error, errorId }, 'mcp tool failed');
    return {
      content: [{ type: 'text', text: `Internal error (errorId ${errorId}); try again later.` }],
      isError: true,
    };
  }
}
