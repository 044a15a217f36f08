/**
 * Prints which backend a contract suite runs against, so a test log says what was really tested. Written straight to
 * stderr: jest drops console output of a file whose tests are all skipped, and a skip must say why.
 */
export function announceContractTarget(port: string, adapter: string, target: string): void {
  process.stderr.write(`${port} contract: ${adapter} — ${target}\n`);
}
