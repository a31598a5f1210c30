/**
 * Deliverables in an S3 bucket (issue 25 §2), for deployments on object storage: AWS S3 or any S3-compatible server
 * (SeaweedFS, MinIO, R2...). `DELIVERABLE_STORE=s3`.
 */
import { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import {
  isSha256Hex,
  RangeNotSatisfiableError,
  readWhole,
  sha256Hex,
  type ByteRange,
  type OpenedBlob,
  type StoredBlob,
  type StreamingDeliverableStore,
} from './deliverables';

/** Where the store writes: a bucket that exists, and the client settings (credentials: the SDK's default chain). */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix; objects are `<prefix><sha256>`. Default `deliverables/`. */
  prefix?: string;
  /** Passed to the SDK's `S3Client` (region, endpoint, forcePathStyle, credentials...). */
  client?: S3ClientConfig;
}

const statusOf = (err: unknown): number | undefined =>
  err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;

/**
 * One object per blob under `deliverables/<sha256>`. A put asks first (HEAD) and uploads only missing bytes, sending
 * their SHA-256 so the server refuses a corrupted upload; two uploads of the same bytes at once leave one object,
 * since S3 keys are unique and both write the same bytes. Errors of the SDK (network, 403...) are thrown as they come.
 */
export class S3DeliverableStore implements StreamingDeliverableStore {
  readonly description: string;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StoreOptions) {
    // Responses are checked against the object's stored SHA-256 where it applies: on whole reads (ChecksumMode
    // below), never on ranged ones, whose bytes a whole-object checksum cannot match (GoFakeS3 sends it anyway).
    this.client = new S3Client({ responseChecksumValidation: 'WHEN_REQUIRED', ...options.client });
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? 'deliverables/';
    this.description = `s3://${this.bucket}/${this.prefix}`;
  }

  private key(sha256: string): string {
    return `${this.prefix}${sha256}`;
  }

  /** The size in bytes of the object for `sha256` (a HEAD request), or null when there is none. */
  async sizeOf(sha256: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(sha256) }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  }

  async put(content: Buffer): Promise<StoredBlob> {
    const sha256 = sha256Hex(content);
    if ((await this.sizeOf(sha256)) === null) {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(sha256),
          Body: content,
          ContentLength: content.length,
          ContentType: 'application/octet-stream',
          ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
        }),
      );
    }
    return { sha256, size: content.length };
  }

  get(sha256: string): Promise<Buffer | null> {
    return readWhole(this, sha256);
  }

  async open(sha256: string, range?: ByteRange): Promise<OpenedBlob | null> {
    if (!isSha256Hex(sha256)) return null;
    if (range && (range.start < 0 || range.end < range.start)) {
      // Not a range S3 would answer 416 to (it ignores malformed ones): refused here, with the size, as elsewhere.
      const size = await this.sizeOf(sha256);
      if (size === null) return null;
      throw new RangeNotSatisfiableError(range, size);
    }
    let res;
    try {
      res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.key(sha256),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : { ChecksumMode: 'ENABLED' }),
        }),
      );
    } catch (err) {
      const status = statusOf(err);
      if (status === 404) return null;
      // Out of range: the size is asked for (a HEAD), so the error says it like the other stores' do.
      if (status === 416 && range) {
        const size = await this.sizeOf(sha256);
        if (size === null) return null;
        throw new RangeNotSatisfiableError(range, size);
      }
      throw err;
    }
    // `Content-Range: bytes 0-9/1234` gives the whole size of a ranged answer.
    const total = /\/(\d+)$/.exec(res.ContentRange ?? '')?.[1];
    const size = total !== undefined ? Number(total) : (res.ContentLength ?? 0);
    const body = res.Body;
    const stream = body instanceof Readable ? body : Readable.from([]);
    return { size, stream };
  }
}
