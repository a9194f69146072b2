import type { Clock } from '../application/ports/clock.js';

export class SystemClock implements Clock {
  /**
   * ISO 8601 in UTC with milliseconds, as Date's toISOString writes it, from the UTC fields:
   * toISOString first loads the machine's time zone (reads /etc/localtime and the links to it),
   * which a UTC timestamp never needs, and every command reads the clock.
   */
  now(): string {
    const date = new Date();
    const date8601 = `${digits(date.getUTCFullYear(), 4)}-${digits(date.getUTCMonth() + 1, 2)}-${digits(date.getUTCDate(), 2)}`;
    return `${date8601}T${digits(date.getUTCHours(), 2)}:${digits(date.getUTCMinutes(), 2)}:${digits(date.getUTCSeconds(), 2)}.${digits(date.getUTCMilliseconds(), 3)}Z`;
  }
}

function digits(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
