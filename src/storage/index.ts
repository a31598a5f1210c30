/** Picks the deliverable store the configuration names (issue 25 §2). */
import type { Db } from 'mongodb';
import type { Config } from '../config';
import { FileDeliverableStore, type StreamingDeliverableStore } from './deliverables';
import { GridFsDeliverableStore } from './gridfs';
import { S3DeliverableStore } from './s3';

export type { StreamingDeliverableStore } from './deliverables';

/** The configuration a store is built from: DELIVERABLE_STORE and its settings. */
export type DeliverableStoreConfig = Pick<
  Config,
  'DELIVERABLE_STORE' | 'STORAGE_DIR' | 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION' | 'S3_FORCE_PATH_STYLE'
>;

/**
 * The store of DELIVERABLE_STORE: GridFS in `db` (default), S3 (S3_BUCKET, S3_ENDPOINT, S3_REGION,
 * S3_FORCE_PATH_STYLE; credentials from the AWS SDK's default chain: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY,
 * profiles, instance roles) or files in STORAGE_DIR. Connects nothing: the first read or write does.
 * @throws Error when DELIVERABLE_STORE is `s3` without S3_BUCKET.
 */
export function createDeliverableStore(config: DeliverableStoreConfig, db: Db): StreamingDeliverableStore {
  switch (config.DELIVERABLE_STORE) {
    case 'file':
      return new FileDeliverableStore(config.STORAGE_DIR);
    case 's3':
      if (!config.S3_BUCKET) throw new Error('DELIVERABLE_STORE=s3 needs S3_BUCKET');
      return new S3DeliverableStore({
        bucket: config.S3_BUCKET,
        client: {
          ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
          ...(config.S3_REGION ? { region: config.S3_REGION } : {}),
          forcePathStyle: config.S3_FORCE_PATH_STYLE,
        },
      });
    case 'gridfs':
      return new GridFsDeliverableStore(db);
  }
}
