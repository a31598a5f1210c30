# The Temporal cluster's image for docker-compose.yml: the same server, schema tool, Web UI server and CLI, at the
# same versions and with the same build flags as scripts/setup.sh builds for `npm run start:cluster` (issue 25 §5).
FROM golang:1.26.8-bookworm AS build
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
RUN GOBIN=/out/server go install -tags disable_grpc_modules go.temporal.io/server/cmd/server@v1.32.1 \
 && GOBIN=/out/sql go install go.temporal.io/server/cmd/tools/sql@v1.32.1 \
 && GOBIN=/out/ui go install github.com/temporalio/ui-server/v2/cmd/server@v2.55.0 \
 && GOBIN=/out/cli go install -ldflags "-X github.com/temporalio/cli/temporalcli.Version=1.5.1" \
      github.com/temporalio/cli/cmd/temporal@v1.5.1 \
 && cp -r "$(go env GOMODCACHE)/go.temporal.io/server@v1.32.1/schema" /out/schema

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/server/server /usr/local/bin/temporal-server
COPY --from=build /out/sql/sql /usr/local/bin/temporal-sql-tool
COPY --from=build /out/ui/server /usr/local/bin/temporal-ui-server
COPY --from=build /out/cli/temporal /usr/local/bin/temporal
COPY --from=build /out/schema /usr/share/temporal/schema
COPY deploy/temporal /etc/temporal
