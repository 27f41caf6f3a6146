/**
 * Runs `read` now and every `ms` while the page is visible (a hidden tab asks nothing; it reads
 * again as soon as it is shown). One read at a time. Returns the stop function (an effect's cleanup).
 */
export function poll(read: () => Promise<void>, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let running = false;

  const schedule = (): void => {
    if (stopped || document.visibilityState === 'hidden') return;
    timer = setTimeout(() => void tick(), ms);
  };
  const tick = async (): Promise<void> => {
    timer = null;
    running = true;
    await read();
    running = false;
    schedule();
  };
  const onVisibility = (): void => {
    if (document.visibilityState === 'visible' && timer === null && !running && !stopped) void tick();
  };

  document.addEventListener('visibilitychange', onVisibility);
  void tick();
  return () => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
