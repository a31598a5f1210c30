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
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
EXPOSE 3000
CMD ["node", "dist/src/server.js"]
