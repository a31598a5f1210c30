/**
 * `npm run build`: the API and the worker as JavaScript in `dist/` (scripts/lib/compile.ts), as `npm start` and the
 * Docker image run them: `node dist/src/server.js`, `… dist/worker/index.js`.
 */
import path from 'node:path';
import { compileServers } from './lib/compile';

compileServers(path.resolve(__dirname, '..'))
  .then((out) => console.log(`compiled into ${out}`))
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
