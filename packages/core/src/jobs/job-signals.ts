/** Tells whoever follows a job that its record changed (progress or state). */
export interface JobNotifier {
  jobChanged(jobId: string): Promise<void>;
}

/** Calls `onChange` whenever a job's record may have changed; returns the function that stops it. */
export interface JobWatcher {
  watchJob(jobId: string, onChange: () => void): () => void;
}

/** The queue side of a cancel: drops a workflow's queued work and waits until none of its jobs runs any more. */
export interface WorkflowHalter {
  /** False when jobs still ran after `timeoutMs` (they stop at their next cancellation check). */
  haltWorkflow(workflowId: string, timeoutMs: number): Promise<boolean>;
}
