import { Option, type Command } from '@commander-js/extra-typings';
import { createApiKey } from './account';
import { action } from './command-kit';

/** The MCP clients `mcp-config` writes a setup for. */
export const MCP_CLIENTS = ['claude-code', 'cursor', 'vscode', 'windsurf', 'claude-desktop', 'codex'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

const PLACEHOLDER_KEY = 'dsk_<your read key>';

interface McpSetup {
  /** Where it goes, in a sentence. */
  where: string;
  /** The command to run or the text to put there. */
  text: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * Each client's own way to add a Streamable HTTP MCP server with a bearer key: a command for Claude Code and Codex, a
 * JSON file for the editors (each with its own key names), and the mcp-remote bridge for Claude Desktop, whose config
 * file starts local commands only.
 */
export function mcpSetupFor(client: McpClient, serverUrl: string, key: string): McpSetup {
  const url = `${serverUrl}/mcp`;
  const authorization = `Bearer ${key}`;
  switch (client) {
    case 'claude-code':
      return {
        where: 'Run in a terminal (add --scope user for every project, --scope project to share it in .mcp.json):',
        text: `claude mcp add --transport http docshelf ${url} --header "Authorization: ${authorization}"`,
      };
    case 'cursor':
      return {
        where: 'Add to ~/.cursor/mcp.json (every project) or .cursor/mcp.json (this project):',
        text: json({ mcpServers: { docshelf: { url, headers: { Authorization: authorization } } } }),
      };
    case 'vscode':
      return {
        where: 'Add to .vscode/mcp.json in the workspace (or run "MCP: Open User Configuration"):',
        text: json({ servers: { docshelf: { type: 'http', url, headers: { Authorization: authorization } } } }),
      };
    case 'windsurf':
      return {
        where: 'Add to ~/.codeium/windsurf/mcp_config.json:',
        text: json({ mcpServers: { docshelf: { serverUrl: url, headers: { Authorization: authorization } } } }),
      };
    case 'claude-desktop':
      return {
        where:
          'Add to claude_desktop_config.json (Settings → Developer → Edit Config); it starts the mcp-remote bridge with npx:',
        text: json({
          mcpServers: {
            docshelf: {
              command: 'npx',
              args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${DOCSHELF_AUTHORIZATION}'],
              env: { DOCSHELF_AUTHORIZATION: authorization },
            },
          },
        }),
      };
    case 'codex':
      return {
        where:
          'Add to ~/.codex/config.toml (or run: codex mcp add docshelf --url ' +
          `${url} --bearer-token-env-var DOCSHELF_API_KEY), with the key in DOCSHELF_API_KEY where Codex runs:`,
        text: [
          '[mcp_servers.docshelf]',
          `url = "${url}"`,
          'bearer_token_env_var = "DOCSHELF_API_KEY"',
          '',
          `# export DOCSHELF_API_KEY=${key}`,
        ].join('\n'),
      };
  }
}

export function mcpConfigCommand(program: Command): void {
  program
    .command('mcp-config')
    .summary("print the setup of this server's MCP endpoint for an MCP client")
    .description(
      `Prints the command or config that adds this server's MCP endpoint (${'<url>'}/mcp) to the client, with a key ` +
        'placeholder, the key given with --key, or a new read key with --create-key (needs docshelf login).',
    )
    .addOption(new Option('-c, --client <client>', 'the MCP client').choices(MCP_CLIENTS).makeOptionMandatory())
    .option('-k, --key <key>', 'the API key to write in (default: a placeholder)')
    .option('--create-key [name]', 'create a read key for it (with the name given, else "MCP: <client>")')
    .action(
      action(async (cli, options) => {
        let key = options.key ?? PLACEHOLDER_KEY;
        if (options.createKey !== undefined) {
          const name = typeof options.createKey === 'string' ? options.createKey : `MCP: ${options.client}`;
          key = (await createApiKey(cli, name, 'read')).key;
          cli.output.note(cli.output.errColor.dim(`Created the read key "${name}" for it: shown here once.`));
        }
        const setup = mcpSetupFor(options.client, cli.settings.url, key);
        cli.output.note(setup.where);
        cli.output.line(setup.text);
        if (key === PLACEHOLDER_KEY) {
          cli.output.note(
            cli.output.errColor.dim(
              `Replace ${PLACEHOLDER_KEY} with a read key: docshelf keys create <name>, or --create-key.`,
            ),
          );
        }
      }),
    );
}
