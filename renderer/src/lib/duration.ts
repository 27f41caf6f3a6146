/**
 * Durations as people read and type them: a number of seconds said in its two largest units
 * ("1 hour 30 minutes"), a remaining time as a countdown ("1 day 02:03:04"), and a number of
 * seconds split into the number and unit a form shows (600 -> 10 minutes).
 */
import { t } from './i18n.svelte.ts';

export const DURATION_UNITS = ['second', 'minute', 'hour', 'day'] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];
export const UNIT_SECONDS: Readonly<Record<DurationUnit, number>> = { second: 1, minute: 60, hour: 3600, day: 86_400 };

/** A number of one unit: "10 minutes", "10 分钟". */
export function unitText(value: number, unit: DurationUnit): string {
  return t(`duration.${unit}`, { count: value });
}

/** Seconds in their two largest units: 5400 -> "1 hour 30 minutes"; 0 -> "0 seconds". */
export function durationText(seconds: number): string {
  let rest = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const unit of [...DURATION_UNITS].reverse()) {
    const size = UNIT_SECONDS[unit];
    const n = Math.floor(rest / size);
    if (n > 0 && parts.length < 2) {
      parts.push(unitText(n, unit));
      rest -= n * size;
    } else if (parts.length > 0) break;
  }
  return parts.length > 0 ? parts.join(' ') : unitText(0, 'second');
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** A remaining time as a countdown: "04:59", "1:02:03", "2 days 03:04:05". */
export function countdownText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const clock = h > 0 || days > 0 ? `${days > 0 ? pad(h) : h}:${pad(m)}:${pad(s % 60)}` : `${pad(m)}:${pad(s % 60)}`;
  return days > 0 ? `${unitText(days, 'day')} ${clock}` : clock;
}

/** Seconds as the largest unit that divides them exactly (600 -> 10 minutes, 90 -> 90 seconds). */
export function splitDuration(seconds: number): { value: number; unit: DurationUnit } {
  for (const unit of [...DURATION_UNITS].reverse()) {
    const size = UNIT_SECONDS[unit];
    if (seconds >= size && seconds % size === 0) return { value: seconds / size, unit };
  }
  return { value: seconds, unit: 'second' };
}
