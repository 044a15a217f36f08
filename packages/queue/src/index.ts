export * from './connections';
export * from './job-options';
export * from './bullmq-job-runner';
export * from './eviction-policy';
export { pingRedis, watchRedisAvailability } from './redis-health';
