/** Briefly opens an address and closes it again: null when it can be bound, else the OS error code. */
export interface BindProbe {
  probe(host: string, port: number): Promise<string | null>;
}
