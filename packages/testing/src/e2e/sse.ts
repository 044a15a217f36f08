export interface SseEvent {
  event: string;
  data: any;
}

export interface EventStream {
  status: number;
  contentType: string | null;
  /** Every event so far, in order. */
  events: SseEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<SseEvent[]>;
  /** Resolves with the first event (already received or still to come) that matches. */
  next(match: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/**
 * Opens a text/event-stream with fetch and parses its `event:` / `data:` frames as they arrive; `onEvent` is told of
 * each as soon as it is parsed (to time it, or to act on it).
 */
export async function openEventStream(
  url: string,
  headers: Record<string, string> = {},
  onEvent?: (event: SseEvent) => void,
): Promise<EventStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  const ended = (async () => {
    if (!res.body) return events;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = parseFrame(frame);
          if (event) {
            events.push(event);
            onEvent?.(event);
            notify();
          }
        }
      }
    } catch {
      /* closed by us */
    }
    notify();
    return events;
  })();
  let done = false;
  void ended.then(() => (done = true));
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    ended,
    next: (match, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (found) {
            cleanup();
            resolve(found);
          } else if (done) {
            cleanup();
            reject(new Error(`stream ended without a matching event: ${JSON.stringify(events.slice(-5))}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching event within ${timeoutMs} ms: ${JSON.stringify(events.slice(-5))}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () => controller.abort(),
  };
}

function parseFrame(frame: string): SseEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return undefined;
  return { event, data: JSON.parse(data.join('\n')) };
}
