import type {
  ChunkInput,
  CrawledPage,
  StagedPage,
  StagedPageContent,
  StagedPageOutline,
  StagingStore,
} from '@docshelf/core';
import type { CrawledPageDoc, StagedPageDoc } from './mongo.models';
import { nextSeq, type MongoRecordDatabase } from './mongo.record-database';
import { optionalField } from './optional-field';

/** Pages staged by ingestions and crawls, and the pages a library's crawls kept, on MongoDB. */
export class MongoStagingStore implements StagingStore {
  constructor(private readonly db: MongoRecordDatabase) {}

  async stagePage(input: {
    stagingId: string;
    url: string;
    chunks: ChunkInput[];
    page?: StagedPageContent;
    now: Date;
  }): Promise<void> {
    // seq is set on the first stage only, so a page staged again keeps its place.
    const fields = { chunks: input.chunks, createdAt: input.now };
    const update = input.page ? { $set: { ...fields, page: input.page } } : { $set: fields, $unset: { page: 1 } };
    await this.db.models.stagedPages.updateOne(
      { stagingId: input.stagingId, url: input.url },
      { ...update, $setOnInsert: { seq: nextSeq() } },
      { upsert: true },
    );
  }

  async listStagedPages(stagingId: string): Promise<StagedPage[]> {
    const docs = await this.db.models.stagedPages.find({ stagingId }).sort({ seq: 1 }).lean();
    return docs.map(toStagedPage);
  }

  async listStagedOutlines(
    stagingId: string,
    page: { afterUrl?: string; limit: number },
  ): Promise<StagedPageOutline[]> {
    // Projected on the server: the pages' text never leaves MongoDB.
    const docs = await this.db.models.stagedPages
      .find(
        { stagingId, url: { $gt: page.afterUrl ?? '' } },
        { url: 1, 'page.links': 1, 'page.lineKeys': 1, 'page.unchanged': 1 },
      )
      .sort({ url: 1 })
      .limit(page.limit)
      .lean<Array<Pick<StagedPageDoc, 'url'> & { page?: Partial<StagedPageContent> }>>();
    return docs.map((doc) => ({
      url: doc.url,
      links: doc.page?.links ?? [],
      ...(doc.page?.lineKeys ? { lineKeys: doc.page.lineKeys } : {}),
      unchanged: doc.page?.unchanged === true,
      chunksOnly: doc.page === undefined,
    }));
  }

  async getStagedPages(stagingId: string, urls: string[]): Promise<StagedPage[]> {
    if (urls.length === 0) return [];
    const docs = await this.db.models.stagedPages.find({ stagingId, url: { $in: urls } }).lean<StagedPageDoc[]>();
    return docs.map(toStagedPage);
  }

  async getCrawledPage(libraryId: string, url: string): Promise<CrawledPage | null> {
    const doc = await this.db.models.crawledPages.findOne({ libraryId, url }).lean<CrawledPageDoc>();
    return doc ? toCrawledPage(doc) : null;
  }

  async getCrawledPages(libraryId: string, urls: string[]): Promise<CrawledPage[]> {
    if (urls.length === 0) return [];
    const docs = await this.db.models.crawledPages.find({ libraryId, url: { $in: urls } }).lean<CrawledPageDoc[]>();
    return docs.map(toCrawledPage);
  }

  async countCrawledPages(libraryId: string): Promise<{ pages: number; chunks: number }> {
    const pages = await this.db.models.crawledPages.countDocuments({ libraryId });
    const [distinct] = await this.db.models.crawledPages.aggregate<{ chunks: number }>([
      { $match: { libraryId } },
      { $unwind: '$chunkIds' },
      { $group: { _id: '$chunkIds' } },
      { $count: 'chunks' },
    ]);
    return { pages, chunks: distinct?.chunks ?? 0 };
  }

  async discardStaging(stagingId: string, olderThan?: Date): Promise<void> {
    await this.db.models.stagedPages.deleteMany({ stagingId });
    if (olderThan) await this.db.models.stagedPages.deleteMany({ createdAt: { $lt: olderThan } });
  }
}

function toStagedPage(doc: Pick<StagedPageDoc, 'url' | 'chunks' | 'page'>): StagedPage {
  return { url: doc.url, chunks: doc.chunks, ...(doc.page ? { page: doc.page } : {}) };
}

function toCrawledPage(doc: CrawledPageDoc): CrawledPage {
  return {
    url: doc.url,
    ...optionalField('etag', doc.etag),
    ...optionalField('lastModified', doc.lastModified),
    contentHash: doc.contentHash,
    chunkIds: [...doc.chunkIds],
    lineKeys: [...doc.lineKeys],
    links: [...doc.links],
  };
}
