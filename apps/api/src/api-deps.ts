import type { Config } from '@docshelf/config';
import type { JobRunner, RecordStore } from '@docshelf/core';
import type { Logger } from 'pino';

export interface ApiDeps {
  config: Pick<Config, 'http' | 'sessionTtlMs' | 'publicLibraryDelete'>;
  records: RecordStore;
  jobs: JobRunner;
  logger: Logger;
}
