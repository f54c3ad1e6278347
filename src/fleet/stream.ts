/**
 * The JetStream stream the fleet publishes to: `AGENTSTREAM` by default, subjects `agentstream.>`,
 * created when missing with the limits asked for. An existing stream is used as it is (its limits
 * and replicas are the operator's: docs/fleet.md).
 */
import { JetStreamApiCodes, JetStreamApiError, jetstreamManager, StorageType } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { SUBJECT_PREFIX } from "./subjects.ts";
/** How long JetStream remembers a message id: a retry within it is stored once. */
const DEFAULT_DUPLICATE_WINDOW_MS = 10 * 60_000;

export interface StreamLimits {
  readonly name: string;
  /** Events older than this are removed; 0: kept until `maxBytes`. */
  readonly maxAgeMs?: number;
  /** The stream's size at most (oldest events removed first); absent: no limit. */
  readonly maxBytes?: number;
  /** @defaultValue DEFAULT_DUPLICATE_WINDOW_MS (never more than maxAge) */
  readonly duplicateWindowMs?: number;
  /** Copies of the stream in a cluster (1 on a single server). */
  readonly replicas?: number;
}

const NS_PER_MS = 1_000_000;
/** JetStream's "stream name already in use" (the client names no constant for it). */
const STREAM_NAME_IN_USE = 10058;

/** Creates the stream when it does not exist; returns true when it was created. */
export async function ensureStream(connection: NatsConnection, limits: StreamLimits): Promise<boolean> {
  const manager = await jetstreamManager(connection);
  try {
    await manager.streams.info(limits.name);
    return false;
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || error.code !== JetStreamApiCodes.StreamNotFound) throw error;
  }
  const maxAgeMs = limits.maxAgeMs ?? 0;
  const window = Math.min(limits.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS, maxAgeMs > 0 ? maxAgeMs : Number.POSITIVE_INFINITY);
  try {
    await manager.streams.add({
      name: limits.name,
      subjects: [`${SUBJECT_PREFIX}.>`],
      storage: StorageType.File,
      max_age: maxAgeMs * NS_PER_MS,
      max_bytes: limits.maxBytes ?? -1,
      duplicate_window: window * NS_PER_MS,
      num_replicas: limits.replicas ?? 1,
    });
  } catch (error) {
    // Another publisher created it meanwhile.
    if (error instanceof JetStreamApiError && error.code === STREAM_NAME_IN_USE) return false;
    throw error;
  }
  return true;
}
