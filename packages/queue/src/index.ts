export * from './connections';
export * from './job-options';
export * from './bullmq-job-runner';
export * from './eviction-policy';
export { pingRedis, watchRedisAvailability } from './redis-health';
export * from './bullmq-worker-queues';
export { runStepJob, isWaitingForChildren, childJobId, type QueueOf } from './step-job';
export { RedisProbe } from './redis-probe';
export { RedisHostThrottle } from './redis-host-throttle';
