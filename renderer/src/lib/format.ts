/** Display formats shared by every page. */
import { t } from './i18n.svelte.ts';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Epoch milliseconds as local time `YYYY-MM-DD HH:mm:ss`; null and undefined as an em dash. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Bytes in the largest unit that keeps the number at least 1 (1024 steps, one decimal); null as a dash. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return t('common.dash');
  const units = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return t(`size.${units[unit]!}`, { n: unit === 0 ? value : value.toFixed(1) });
}
