/**
 * Stored workflow histories for replay tests (test/fixtures/histories/*.json).
 *
 * Format: `temporal.api.history.v1.History` as protobufjs `toObject` writes it (enums by name, 64-bit integers and
 * bytes as strings), not the proto3 JSON of `temporal workflow show --output json`: in this install
 * `historyToJSON` / `historyFromJSON` of @temporalio/common 1.24 throw "type must be a Type" (its nested protobufjs 8
 * meets the protobufjs 7 types of @temporalio/proto), so the canonical format can be neither written nor read here.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';

const History = temporal.api.history.v1.History;
const TO_OBJECT = { longs: String, enums: String, bytes: String } as const;

/**
 * Writes a history (as `handle.fetchHistory()` returns it) to `file`, or beside it with a date suffix when `file`
 * exists: stored fixtures are never overwritten, since they are the histories that must keep replaying.
 * @returns the path written.
 */
export function saveHistory(file: string, history: temporal.api.history.v1.IHistory): string {
  const json = History.toObject(History.fromObject(history), TO_OBJECT);
  const target = existsSync(file) ? file.replace(/\.json$/, `-${new Date().toISOString().slice(0, 10)}.json`) : file;
  writeFileSync(target, `${JSON.stringify(json, null, 1)}\n`);
  return target;
}

/** Reads a history written by {@link saveHistory}, ready for `Worker.runReplayHistory`. */
export function loadHistory(file: string): temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
}
