/**
 * Token cookie verification, the probe's part of the verdict hot path: valid IP-locked tokens of
 * 1,000 devices checked round-robin. `token_verify` is the service as configured (verified-token
 * cache on: a browser repeats its token on every request); `token_verify_cold` has the cache off,
 * so every call runs the MAC. The reference is one plain `createHmac` over the same bytes in the
 * same run: what a straightforward implementation spends on the MAC alone.
 */
import { createHmac } from 'node:crypto';
import { TokenService } from '#engine/probe';
import { ManualClock } from '#engine/shared';

const ROUNDS = 5;
const PER_ROUND = 200_000;
const clock = new ManualClock(Date.UTC(2026, 0, 1));
const secret = Buffer.alloc(32, 7);
const tokens = new TokenService(secret, clock);
const cold = new TokenService(secret, clock, { verifiedCacheSize: 0 });
const ctx = { siteId: 'site_3k9f0q2m7x1c', ip: '203.0.113.54' };
const issued = Array.from({ length: 1000 }, () =>
  tokens.issue({ siteId: ctx.siteId, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 60, ip: ctx.ip }),
);

function best(run: () => number): number {
  let fastest = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    const sink = run();
    const ns = Number(process.hrtime.bigint() - start);
    if (sink < 0) throw new Error('unreachable');
    fastest = Math.min(fastest, ns / PER_ROUND);
  }
  return fastest;
}

const oursNs = best(() => {
  let valid = 0;
  for (let i = 0; i < PER_ROUND; i++) if (tokens.verify(issued[i % issued.length], ctx).kind === 'valid') valid++;
  if (valid !== PER_ROUND) throw new Error('a token did not verify');
  return valid;
});

const coldNs = best(() => {
  let valid = 0;
  for (let i = 0; i < PER_ROUND; i++) if (cold.verify(issued[i % issued.length], ctx).kind === 'valid') valid++;
  if (valid !== PER_ROUND) throw new Error('a token did not verify');
  return valid;
});

const key = Buffer.alloc(32, 9);
const raw = issued.map((t) => Buffer.from(t, 'base64url'));
const referenceNs = best(() => {
  let n = 0;
  for (let i = 0; i < PER_ROUND; i++) {
    n +=
      createHmac('sha256', key)
        .update(raw[i % raw.length] ?? Buffer.alloc(0))
        .update(`${ctx.siteId}\u0000${ctx.ip}`)
        .digest()[0] ?? 0;
  }
  return n;
});

console.log(`token_verify: ${Math.round(1e9 / oursNs)} /s`);
console.log(`token_verify_us: ${(oursNs / 1000).toFixed(2)} us`);
console.log(`token_verify_cold: ${Math.round(1e9 / coldNs)} /s`);
console.log(`token_verify_cold_us: ${(coldNs / 1000).toFixed(2)} us`);
console.log(`reference_create_hmac_us: ${(referenceNs / 1000).toFixed(2)} us`);
