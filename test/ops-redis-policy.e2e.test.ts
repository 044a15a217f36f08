import { checkEvictionPolicy, warnIfEvictionPolicyUnsafe } from '@docshelf/queue';
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';

/** The boot check of Redis's maxmemory-policy, against redis-servers the test starts itself. */
describe('Redis maxmemory-policy check', () => {
  const servers: TestRedis[] = [];
  afterAll(async () => Promise.all(servers.map((s) => s.stop())));
  const start = async (args: string[]) => {
    const server = await startTestRedis(args);
    servers.push(server);
    return server;
  };
  const logger = () => {
    const lines: { level: string; fields: object; message: string }[] = [];
    return {
      lines,
      info: (fields: object, message: string) => lines.push({ level: 'info', fields, message }),
      warn: (fields: object, message: string) => lines.push({ level: 'warn', fields, message }),
    };
  };

  it('is quiet about noeviction and warns about any other policy', async () => {
    const safe = await start(['--maxmemory-policy', 'noeviction']);
    expect(await checkEvictionPolicy(safe.url)).toEqual({ status: 'ok', policy: 'noeviction' });
    const unsafe = await start(['--maxmemory-policy', 'volatile-lru']);
    const log = logger();
    expect(await warnIfEvictionPolicyUnsafe(unsafe.url, log)).toEqual({ status: 'unsafe', policy: 'volatile-lru' });
    expect(log.lines).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/'volatile-lru', not 'noeviction'/) }),
    ]);
  });

  it('says it could not check when CONFIG is refused, as on managed Redis', async () => {
    const managed = await start(['--rename-command', 'CONFIG', '""']);
    const log = logger();
    const check = await warnIfEvictionPolicyUnsafe(managed.url, log);
    expect(check).toMatchObject({ status: 'unknown', reason: expect.stringMatching(/unknown command/i) });
    expect(log.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: expect.stringMatching(/could not check redis maxmemory-policy/),
      }),
    ]);
  });
});
