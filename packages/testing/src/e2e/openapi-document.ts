import request from 'supertest';
import { startHarness, type Harness } from './harness';

/**
 * A harness (that may crawl 127.0.0.1, for the fixture site) and the OpenAPI document it serves at
 * /api/openapi.json, which must be JSON.
 */
export async function startOpenApiHarness(): Promise<{ h: Harness; doc: any }> {
  const h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
  try {
    return { h, doc: (await request(h.app).get('/api/openapi.json').expect(200).expect('content-type', /json/)).body };
  } catch (error) {
    await h.close();
    throw error;
  }
}
