/** Display formats shared by every page. */

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Epoch milliseconds as local time `YYYY-MM-DD HH:mm:ss`; null and undefined as an em dash. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
