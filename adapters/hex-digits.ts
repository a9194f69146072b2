/** A number as the checkpoint and the ledger write a CRC-32, a count or an offset: 8 lowercase hex digits. */
export function eightHexDigits(value: number): string {
  return value.toString(16).padStart(8, '0');
}

/** The number that 8 lowercase hex digits write; null for any other text. */
export function ofEightHexDigits(digits: string): number | null {
  return /^[0-9a-f]{8}$/.test(digits) ? parseInt(digits, 16) : null;
}
