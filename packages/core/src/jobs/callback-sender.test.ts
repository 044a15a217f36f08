import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signCallback, webhookKeyOf } from './callback-sender';

const message = { id: 'b3f1c2d4-5e6f-4a1b-8c9d-0e1f2a3b4c5d', timestamp: new Date(), body: '{"state":"completed"}' };

describe('signCallback', () => {
  it('signs "id.timestamp.body" with HMAC-SHA256 in Standard Webhooks headers', () => {
    const headers = signCallback('a-plain-secret-of-16+', message);
    const seconds = String(Math.floor(message.timestamp.getTime() / 1000));
    expect(headers['webhook-id']).toBe(message.id);
    expect(headers['webhook-timestamp']).toBe(seconds);
    const expected = createHmac('sha256', Buffer.from('a-plain-secret-of-16+', 'utf8'))
      .update(`${message.id}.${seconds}.${message.body}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('is verified by a receiver given whsec_ + base64 of a plain secret, and with a whsec_ secret as such', () => {
    const plain = 'pässwörd-with-ümlauts';
    const asStandard = `whsec_${Buffer.from(plain, 'utf8').toString('base64')}`;
    expect(new Webhook(asStandard).verify(message.body, signCallback(plain, message))).toEqual({ state: 'completed' });

    const standard = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;
    const headers = signCallback(standard, message);
    expect(new Webhook(standard).verify(message.body, headers)).toEqual({ state: 'completed' });
    expect(() => new Webhook(standard).verify(message.body.replace('completed', 'failed'), headers)).toThrow();
  });

  it('refuses a whsec_ secret that is not base64 or too short', () => {
    expect(() => webhookKeyOf('whsec_***not-base64***')).toThrow(/base64/);
    expect(() => webhookKeyOf(`whsec_${Buffer.alloc(15).toString('base64')}`)).toThrow(/16 bytes/);
    expect(webhookKeyOf(`whsec_${Buffer.alloc(16, 1).toString('base64')}`)).toEqual(new Uint8Array(16).fill(1));
  });
});
