/** The API entry's fetch warm-up (src/http/fetchWarmup.ts): one real round trip, and never a failed start. */
import { warmFetch } from '../../src/http/fetchWarmup';

describe('warmFetch', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('makes one JSON POST through fetch to its own local server and reads the answer', async () => {
    const calls: { url: string; method: string | undefined; status: number; body: string }[] = [];
    globalThis.fetch = async (input, init) => {
      const res = await realFetch(input, init);
      const body = await res.clone().text();
      calls.push({ url: String(input), method: init?.method, status: res.status, body });
      return res;
    };
    await warmFetch();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(calls[0]!.method).toBe('POST');
    expect(calls[0]!.status).toBe(200);
    expect(calls[0]!.body).toBe('{}');
  });

  it('resolves when fetch fails', async () => {
    globalThis.fetch = () => Promise.reject(new TypeError('fetch failed'));
    await expect(warmFetch()).resolves.toBeUndefined();
  });
});
