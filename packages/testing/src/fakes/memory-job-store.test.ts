import { MemoryJobStore } from './memory-job-store';
import { describeJobStoreContract } from '../contracts/job-store.contract';
import { announceContractTarget } from '../targets/announce-target';

// The fake that core's fast tests use passes the same contract as the real stores.
announceContractTarget('JobStore', 'memory (test fake)', 'in-process Map');
describeJobStoreContract('MemoryJobStore', async () => ({
  store: new MemoryJobStore(),
  cleanup: async () => undefined,
}));
