/** Picks the deliverable store the configuration names (issue 25 §2). */
import type { Db } from 'mongodb';
import type { Config } from '../config';
import { FileDeliverableStore, type StreamingDeliverableStore } from './deliverables';
import { DEFAULT_GRIDFS_BUCKET, GridFsDeliverableStore, INLINE_MAX_BYTES } from './gridfs';
import type * as S3Module from './s3';

export type { StreamingDeliverableStore } from './deliverables';

/** The configuration a store is built from: DELIVERABLE_STORE and its settings. */
export type DeliverableStoreConfig = Pick<
  Config,
  'DELIVERABLE_STORE' | 'STORAGE_DIR' | 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION' | 'S3_FORCE_PATH_STYLE'
>;

/**
 * The store of DELIVERABLE_STORE: GridFS in `db` (default), S3 (S3_BUCKET, S3_ENDPOINT, S3_REGION,
 * S3_FORCE_PATH_STYLE; credentials from the AWS SDK's default chain: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY,
 * profiles, instance roles) or files in STORAGE_DIR. GridFS keeps blobs of one chunk or less whole in one document
 * each ({@link INLINE_MAX_BYTES}). Connects nothing: the first read or write does. The AWS SDK is
 * loaded only for `s3` (it costs every process about 20 MB of memory).
 * @throws Error when DELIVERABLE_STORE is `s3` without S3_BUCKET.
 */
export function createDeliverableStore(config: DeliverableStoreConfig, db: Db): StreamingDeliverableStore {
  switch (config.DELIVERABLE_STORE) {
    case 'file':
      return new FileDeliverableStore(config.STORAGE_DIR);
    case 's3': {
      if (!config.S3_BUCKET) throw new Error('DELIVERABLE_STORE=s3 needs S3_BUCKET');
      // Loaded here, not at the top, with a CommonJS require like the rest of the build (an ESM import() would need
      // Jest's VM modules flag).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { S3DeliverableStore } = require('./s3') as typeof S3Module;
      return new S3DeliverableStore({
        bucket: config.S3_BUCKET,
        client: {
          ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
          ...(config.S3_REGION ? { region: config.S3_REGION } : {}),
          forcePathStyle: config.S3_FORCE_PATH_STYLE,
        },
      });
    }
    case 'gridfs':
      return new GridFsDeliverableStore(db, DEFAULT_GRIDFS_BUCKET, INLINE_MAX_BYTES);
  }
}
