/**
 * How a ledger record starts and ends (ledger-records.ts): a prefix of fixed width,
 * `{"crc32":"<8 hex>","bytes":"<10 digits>","change":`, the change set's JSON, and `}\n`. Shared by
 * the reader in JavaScript and the one in the CRC-32 module (crc32-wasm.ts), which check the same bytes.
 */
export const RECORD_PREFIX = '{"crc32":"00000000","bytes":"0000000000","change":';
/** Where the prefix's CRC-32 (8 lowercase hex digits) and length (10 decimal digits) are. */
export const CRC_AT = '{"crc32":"'.length;
export const CRC_DIGITS = 8;
export const LENGTH_AT = '{"crc32":"00000000","bytes":"'.length;
export const LENGTH_DIGITS = 10;
/** What closes a record after its change set: the record object's brace and the line's end. */
export const RECORD_SUFFIX = '}\n';
