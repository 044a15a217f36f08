import { spawnSync } from 'node:child_process';

/** Whether testcontainers finds a container runtime; the reason when it does not (never shells out to `which docker`). */
export async function detectContainerRuntime(): Promise<{ available: true } | { available: false; reason: string }> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return { available: true };
  } catch (error) {
    return { available: false, reason: `no container runtime (${(error as Error).message.split('\n')[0]})` };
  }
}

/**
 * The same check, answered synchronously so a test file can choose `describe` or `describe.skip` while jest collects
 * tests; testcontainers' client runs in a child process.
 */
export function detectContainerRuntimeSync(): { available: true } | { available: false; reason: string } {
  const script = `require('testcontainers').getContainerRuntimeClient().then(() => process.exit(0), (e) => { console.error(String(e.message).split('\\n')[0]); process.exit(3); })`;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
  if (result.status === 0) return { available: true };
  return {
    available: false,
    reason: `no container runtime (${result.stderr.trim().split('\n').pop() || `exit ${result.status}`})`,
  };
}
