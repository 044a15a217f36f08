export * from './connections';
export * from './job-options';
export * from './bullmq-job-runner';
