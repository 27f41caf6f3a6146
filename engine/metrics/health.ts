/** Which parts of the engine are up, as `/api/v1/health` tells signed-in callers. */
export interface HealthParts {
  gateway: { state: 'listening' | 'down'; port: number };
  /** The TLS-TCP log intake: `off` when its port is 0, `down` when the port could not be had. */
  intake: { state: 'listening' | 'off' | 'down'; port: number };
  /** One per BROKER configuration. */
  kafka: {
    config: string;
    name: string;
    state: 'connected' | 'connecting' | 'error' | 'stopped';
    message: string | null;
  }[];
  store: { state: 'open' | 'error'; bytes: number | null; message: string | null };
  /** `over` when the volume's free share is under the budget's, or the store over its cap. */
  disk: { state: 'ok' | 'over' | 'unknown'; freeRatio: number | null; minFreeRatio: number; maxBytes: number | null };
  /** The reverse proxy's site ports (CNAME sites); `down` with why the port could not be had. */
  proxy: { port: number; tls: boolean; state: 'listening' | 'down'; message: string | null }[];
}

export interface HealthSources {
  gateway(): { listening: boolean; port: number };
  intake(): { port: number; listening: boolean };
  /** The BROKER configurations' consumers (`state` as the consumer says: connecting, connected, retrying, stopped). */
  kafka(): readonly { config: string; name: string; state: string; lastError: string | null }[];
  storeBytes(): Promise<number>;
  /** The free and total bytes of the log store's volume. */
  volume(): Promise<{ freeBytes: number; totalBytes: number }>;
  budget: { minFreeRatio: number; maxBytes: number | undefined };
  /** The reverse proxy's listeners (absent: no proxy runs). */
  proxy?(): readonly { port: number; tls: boolean; listening: boolean; error: string | null }[];
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function kafkaState(state: string, lastError: string | null): HealthParts['kafka'][number]['state'] {
  if (state === 'connected' || state === 'connecting') return state;
  if (state === 'retrying' || lastError !== null) return 'error';
  return 'stopped';
}

export async function healthParts(sources: HealthSources): Promise<HealthParts> {
  const gateway = sources.gateway();
  const intake = sources.intake();
  const [bytes, volume] = await Promise.allSettled([sources.storeBytes(), sources.volume()]);
  const storeBytes = bytes.status === 'fulfilled' ? bytes.value : null;
  const freeRatio =
    volume.status === 'fulfilled' && volume.value.totalBytes > 0
      ? volume.value.freeBytes / volume.value.totalBytes
      : null;
  const { minFreeRatio, maxBytes } = sources.budget;
  const over =
    (freeRatio !== null && freeRatio < minFreeRatio) ||
    (maxBytes !== undefined && storeBytes !== null && storeBytes > maxBytes);
  return {
    gateway: { state: gateway.listening ? 'listening' : 'down', port: gateway.port },
    intake: { state: intake.port === 0 ? 'off' : intake.listening ? 'listening' : 'down', port: intake.port },
    kafka: sources.kafka().map((k) => {
      const state = kafkaState(k.state, k.lastError);
      return { config: k.config, name: k.name, state, message: state === 'connected' ? null : k.lastError };
    }),
    store:
      bytes.status === 'fulfilled'
        ? { state: 'open', bytes: bytes.value, message: null }
        : { state: 'error', bytes: null, message: messageOf(bytes.reason) },
    disk: {
      state: over ? 'over' : freeRatio === null ? 'unknown' : 'ok',
      freeRatio,
      minFreeRatio,
      maxBytes: maxBytes ?? null,
    },
    proxy: (sources.proxy?.() ?? []).map((l) => ({
      port: l.port,
      tls: l.tls,
      state: l.listening ? 'listening' : 'down',
      message: l.listening ? null : l.error,
    })),
  };
}
