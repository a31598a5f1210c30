/**
 * `npm run codec-server`: the codec server of issue 26 §1 (Payloads encrypted at rest) as a process of its own, for an
 * operator who runs it on their own machine (the keys then never reach a server the Web UI can see) or a deployment
 * that keeps it apart from the API. The API serves the same at `/codec`.
 *
 * Listens on CODEC_SERVER_HOST:CODEC_SERVER_PORT (default 127.0.0.1:8888) and serves `/codec/decode`,
 * `/codec/encode`, `/codec/login`, `/codec/logout` and `/codec/` (src/http/codecServer.ts). Reads PAYLOAD_ENCRYPTION_KEYS,
 * OPERATOR_KEY (default: DATA_DIR/operator-key, as npm start writes it), TEMPORAL_NAMESPACE and CODEC_CORS_ORIGINS
 * like the API. Point the Web UI (`codec.endpoint`) and `temporal --codec-endpoint` at http://HOST:PORT/codec.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { codecServerApp } from '../src/http/codecServer';

function main(): void {
  const dataDir = path.resolve(process.env.DATA_DIR ?? path.resolve(__dirname, '..', '.data'));
  const keyFile = path.join(dataDir, 'operator-key');
  const env = { ...process.env };
  if (!env.OPERATOR_KEY && existsSync(keyFile)) env.OPERATOR_KEY = readFileSync(keyFile, 'utf8').trim();
  const config = loadConfig(env);
  if (!config.OPERATOR_KEY)
    console.warn('codec-server: no OPERATOR_KEY (nor operator-key file): every request is refused');
  if (!config.PAYLOAD_ENCRYPTION_KEYS)
    console.warn('codec-server: PAYLOAD_ENCRYPTION_KEYS is unset: payloads pass unchanged');
  const host = process.env.CODEC_SERVER_HOST ?? '127.0.0.1';
  const port = Number(process.env.CODEC_SERVER_PORT ?? 8888);
  const server = codecServerApp(config).listen(port, host, () => {
    console.log(
      `codec-server: http://${host}:${port}/codec for namespace ${config.TEMPORAL_NAMESPACE}, ` +
        `Web UI origins ${config.CODEC_CORS_ORIGINS.join(', ')}; sign in at http://${host}:${port}/codec/login`,
    );
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main();
