import { randomUUID } from 'node:crypto';
import type {
  AccountStore,
  ApiKey,
  ApiKeyCandidate,
  ApiKeyRecord,
  Session,
  User,
  UserWithPassword,
} from '@docshelf/core';
import type { ApiKeyDoc } from './mongo.models';
import { isDuplicateKey, nextSeq, type MongoRecordDatabase } from './mongo.record-database';

/** The dashboard's users, sessions and API keys on MongoDB. */
export class MongoAccountStore implements AccountStore {
  constructor(private readonly db: MongoRecordDatabase) {}

  async upsertUser(input: { email: string; passwordHash: string; now: Date }): Promise<User> {
    const upsert = () =>
      this.db.models.users
        .findOneAndUpdate(
          { emailKey: input.email.toLowerCase() },
          {
            $set: { passwordHash: input.passwordHash, updatedAt: input.now },
            $setOnInsert: { _id: randomUUID(), email: input.email, createdAt: input.now },
          },
          { upsert: true, new: true },
        )
        .lean();
    // Two first logins at once can both try the insert; the loser finds the winner's user on the second try.
    const doc = await upsert().catch((error: unknown) =>
      isDuplicateKey(error) ? upsert() : Promise.reject(error as Error),
    );
    return { id: doc._id, email: doc.email };
  }

  async findUserByEmail(email: string): Promise<UserWithPassword | null> {
    const doc = await this.db.models.users.findOne({ emailKey: email.toLowerCase() }).lean();
    return doc ? { id: doc._id, email: doc.email, passwordHash: doc.passwordHash } : null;
  }

  async getUser(id: string): Promise<User | null> {
    const doc = await this.db.models.users.findById(id).lean();
    return doc ? { id: doc._id, email: doc.email } : null;
  }

  async createSession(input: { tokenHash: string; userId: string; expiresAt: Date; now: Date }): Promise<void> {
    await this.db.models.sessions.create({
      _id: input.tokenHash,
      userId: input.userId,
      expiresAt: input.expiresAt,
      createdAt: input.now,
      lastUsedAt: input.now,
    });
  }

  async findSession(tokenHash: string): Promise<Session | null> {
    const doc = await this.db.models.sessions.findById(tokenHash).lean();
    return doc
      ? {
          userId: doc.userId,
          expiresAt: doc.expiresAt.toISOString(),
          lastUsedAt: (doc.lastUsedAt ?? doc.createdAt).toISOString(),
        }
      : null;
  }

  async touchSession(tokenHash: string, at: Date): Promise<void> {
    await this.db.models.sessions.updateOne({ _id: tokenHash }, { $set: { lastUsedAt: at } });
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.models.sessions.deleteOne({ _id: tokenHash });
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    return (await this.db.models.sessions.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }

  async createApiKey(input: Parameters<AccountStore['createApiKey']>[0]): Promise<ApiKey> {
    const { id, now, ...fields } = input;
    const doc: ApiKeyDoc = { _id: id, ...fields, lastUsedAt: null, createdAt: now, seq: nextSeq() };
    await this.db.models.apiKeys.create(doc);
    return toApiKey(doc);
  }

  async listApiKeys(userId: string): Promise<ApiKey[]> {
    const docs = await this.db.models.apiKeys.find({ userId }).sort({ createdAt: -1, seq: -1 }).lean<ApiKeyDoc[]>();
    return docs.map(toApiKey);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const doc = await this.db.models.apiKeys.findOne({ keyHash }).lean<ApiKeyDoc>();
    return doc ? { ...toApiKey(doc), userId: doc.userId } : null;
  }

  async findApiKeysByPrefix(keyPrefix: string): Promise<ApiKeyCandidate[]> {
    const docs = await this.db.models.apiKeys.find({ keyPrefix }).lean<ApiKeyDoc[]>();
    return docs.map((doc) => ({ ...toApiKey(doc), userId: doc.userId, keyHash: doc.keyHash }));
  }

  async deleteApiKey(userId: string, keyId: string): Promise<boolean> {
    return (await this.db.models.apiKeys.deleteOne({ _id: keyId, userId })).deletedCount > 0;
  }

  async touchApiKey(keyId: string, at: Date): Promise<void> {
    await this.db.models.apiKeys.updateOne({ _id: keyId }, { $set: { lastUsedAt: at } });
  }
}

function toApiKey(doc: ApiKeyDoc): ApiKey {
  return {
    id: doc._id,
    name: doc.name,
    keyPrefix: doc.keyPrefix,
    permissions: doc.permissions,
    lastUsedAt: doc.lastUsedAt ? doc.lastUsedAt.toISOString() : null,
    createdAt: doc.createdAt.toISOString(),
  };
}
