// The sandbox's Redis connection (`--redis URL`, decisions SB1-SB3): made when the flag is given, with ioredis
// loaded then (an optional peer of the mock package, like better-sqlite3 for --state: a mock without replicas never
// needs it).
//
// Commands fail at once while the connection is down (no offline queue, one attempt): a request that needs Redis
// answers 503 with Retry-After rather than waiting (rate-answers.ts `unavailable`), and ioredis reconnects by
// itself, every 100 ms to 1 s, so the replica recovers without a restart.
import type { Redis as RedisClient, RedisOptions } from "ioredis";
import { optionalPeer } from "../optional-peer.js";
import { CLAIM_TTL_MS } from "../../core/events/webhooks.js";
import { RoundTrips } from "../round-trips.js";

/** The commands each connection made sent, and how many failed (/metrics). */
export const redisTrips = new WeakMap<RedisClient, RoundTrips>();

export class RedisSetupError extends Error {}

export function connectRedis(url: string): RedisClient {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RedisSetupError(`--redis must be a URL such as redis://127.0.0.1:6379/0; got "${url}".`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new RedisSetupError(`--redis must be a redis:// or rediss:// URL; got "${parsed.protocol}".`);
  }
  const { Redis } = optionalPeer<{ Redis: new (url: string, options: RedisOptions) => RedisClient }>("ioredis", "--redis keeps the rate-limit counters in Redis", (m) => new RedisSetupError(m));
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * times, 1_000),
  });
  // Errors surface per command (a 503); an 'error' event without a listener would end the process.
  client.on("error", () => undefined);
  const trips = new RoundTrips();
  redisTrips.set(client, trips);
  const send = client.sendCommand.bind(client) as (...a: unknown[]) => unknown;
  (client as { sendCommand: unknown }).sendCommand = (...a: unknown[]) => trips.count(send(...a));
  return client;
}

/**
 * Waits until `client` is connected: a replica starts serving only once it can count (else its first requests would
 * all answer 503). Throws RedisSetupError, naming the URL without its password, when Redis does not answer in time.
 */
export function redisReady(client: RedisClient, url: string, timeoutMs = 10_000): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off("ready", ready);
      reject(new RedisSetupError(`Redis at ${url.replace(/\/\/[^@/]*@/, "//")} did not answer within ${timeoutMs / 1000} s (--redis): is it running?`));
    }, timeoutMs);
    const ready = () => (clearTimeout(timer), resolve());
    client.once("ready", ready);
  });
}

/**
 * Takes `key` for this replica, once across every replica on this Redis (SET NX PX): true for the first caller, false
 * for every other until `ttlMs` pass. The lock that makes a delivery (and anything else a step does once) happen on
 * one replica only (decision SB13). Throws when Redis does not answer.
 */
export async function onceAcrossReplicas(client: RedisClient, key: string, ttlMs = CLAIM_TTL_MS): Promise<boolean> {
  return (await client.set(`avt:once:${key}`, "1", "PX", ttlMs, "NX")) === "OK";
}
