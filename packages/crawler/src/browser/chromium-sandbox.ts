import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export interface SandboxCheck {
  ok: boolean;
  /** Why not, when not. */
  reason?: string;
}

const read = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/**
 * Whether Chromium's sandbox can run here: not as root (Chromium refuses), and either unprivileged user namespaces
 * (its namespace sandbox; checked by creating one) or a setuid `chrome-sandbox` helper next to the binary.
 */
export function chromiumSandboxUsable(chromiumPath: string): SandboxCheck {
  if (process.platform !== 'linux') return { ok: true };
  if (process.getuid?.() === 0)
    return { ok: false, reason: 'the worker runs as root, and Chromium refuses its sandbox to root' };
  for (const helper of [`${chromiumPath.replace(/\/[^/]+$/, '')}/chrome-sandbox`, '/usr/lib/chromium/chrome-sandbox']) {
    try {
      const stat = fs.statSync(helper);
      if (stat.uid === 0 && (stat.mode & 0o4000) !== 0) return { ok: true };
    } catch {
      /* not there */
    }
  }
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0')
    return { ok: false, reason: 'kernel.unprivileged_userns_clone is 0' };
  if (read('/proc/sys/user/max_user_namespaces') === '0') return { ok: false, reason: 'user.max_user_namespaces is 0' };
  const probe = spawnSync('unshare', ['--user', '--map-root-user', 'true'], { timeout: 5_000 });
  if (probe.error) return { ok: true };
  if (probe.status !== 0)
    return {
      ok: false,
      reason: `user namespaces are not allowed here (${String(probe.stderr).trim() || `unshare exited ${probe.status}`})`,
    };
  return { ok: true };
}
