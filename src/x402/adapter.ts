/**
 * Koa ↔ x402 HTTP: the `HTTPAdapter` through which `@x402/core`'s `x402HTTPResourceServer` reads a Koa request
 * (counterpart of `@x402/hono`'s `HonoAdapter`, src/adapter.ts of that package). Source: x402 v2 HTTP transport;
 * issue 27 §2.
 */
import type { Context } from 'koa';
import type { HTTPAdapter } from '@x402/core/server';

/**
 * `HTTPAdapter` of `@x402/core` over a Koa context. With `publicBaseUrl`, `getUrl()` is the public URL of the
 * request (the `resourceUrl` signed receipts name, the same as the offers' and the requirements' `resource`).
 */
export class KoaAdapter implements HTTPAdapter {
  /**
   * @param verifyOnChain the payment is verified by the facilitator even when it could be verified offline (its
   *   simulation tells whether the authorization was already used on chain).
   */
  constructor(
    readonly ctx: Context,
    private readonly publicBaseUrl?: string,
    readonly verifyOnChain = false,
  ) {}
  getHeader(name: string): string | undefined {
    return this.ctx.get(name) || undefined;
  }
  getMethod(): string {
    return this.ctx.method;
  }
  getPath(): string {
    return this.ctx.path;
  }
  getUrl(): string {
    if (!this.publicBaseUrl) return this.ctx.href;
    return `${this.publicBaseUrl}${this.ctx.path}${this.ctx.querystring ? `?${this.ctx.querystring}` : ''}`;
  }
  getAcceptHeader(): string {
    return this.ctx.get('accept');
  }
  getUserAgent(): string {
    return this.ctx.get('user-agent');
  }
  getQueryParams(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(this.ctx.query)) if (v !== undefined) out[k] = v;
    return out;
  }
  getQueryParam(name: string): string | string[] | undefined {
    return this.ctx.query[name];
  }
  getBody(): unknown {
    return (this.ctx.request as { body?: unknown }).body;
  }
}
