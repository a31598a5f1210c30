# Image for the API and the worker (docker-compose.yml runs it twice with different commands).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY scripts ./scripts
# The processes run as JavaScript (less memory than under tsx): dist/ from `npm run build`.
RUN npm run build
# Two glibc malloc arenas: less RSS from fragmentation across threads (scripts/lib/compile.ts).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data MALLOC_ARENA_MAX=2
EXPOSE 3000
# V8 tuned for memory over collection work: about 10 MB less RSS at rest and 10-50 MB less under load, for more
# collection work on paid paths; no background V8 threads, whose malloc'd memory varied by start (scripts/lib/compile.ts).
# Blocks of 64 KB and more mapped on their own in the API (socket read buffers; scripts/lib/compile.ts).
CMD ["env", "MALLOC_MMAP_THRESHOLD_=65536", "node", "--optimize-for-size", "--max-semi-space-size=4", "--single-threaded", "dist/src/server.js"]
