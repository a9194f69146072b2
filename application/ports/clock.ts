import type { Timestamp } from '../../domain/clock.js';

export interface Clock {
  now(): Timestamp;
}
