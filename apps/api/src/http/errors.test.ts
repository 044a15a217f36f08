import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { errorHandler } from './errors';

/** An app whose one route throws `error`, behind the service's error handler. */
function appThrowing(error: unknown) {
  return express()
    .get('/boom', () => {
      throw error;
    })
    .get('/things/:id', (_req, res) => {
      res.json({ ok: true });
    })
    .use(errorHandler(pino({ level: 'silent' })));
}

describe('errorHandler', () => {
  it('keeps the 4xx status a library put on its error, in the error shape', async () => {
    const tooMany = Object.assign(new Error('too many parameters'), { statusCode: 413, expose: true });
    const res = await request(appThrowing(tooMany)).get('/boom').expect(413);
    expect(res.body).toEqual({ error: 'too many parameters', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('does not show a library message the library did not mark safe to show', async () => {
    const hidden = Object.assign(new Error('secret detail'), { status: 400 });
    const res = await request(appThrowing(hidden)).get('/boom').expect(400);
    expect(res.body).toEqual({ error: 'Bad Request', code: 'BAD_REQUEST' });
  });

  it('answers a path parameter that does not percent-decode with 400 BAD_REQUEST', async () => {
    const res = await request(appThrowing(new Error('unused')))
      .get('/things/%E0%A4%A')
      .expect(400);
    expect(res.body).toEqual({
      error: "Malformed URL: Failed to decode param '%E0%A4%A'",
      code: 'BAD_REQUEST',
    });
  });

  it.each([
    ['an error without a status', new Error('disk on fire')],
    ['an error carrying a 5xx status', Object.assign(new Error('upstream down'), { status: 502 })],
    ['a thrown string', 'not even an Error'],
  ])('answers %s with 500 INTERNAL and an errorId', async (_name, error) => {
    const res = await request(appThrowing(error)).get('/boom').expect(500);
    expect(res.body).toEqual({
      error: expect.stringMatching(/^Internal error \(errorId [0-9a-f-]{36}\)$/),
      code: 'INTERNAL',
      errorId: expect.any(String),
    });
  });
});
