export interface BoardServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** The built board (index.html and assets/). */
  uiRoot: string;
}

export interface ServedBoard {
  host: string;
  port: number;
}

/** What `taskdag ui` needs of the machine: a listening board, and the user's browser. */
export interface BoardHost {
  /** Serves the board and the local storage root's board reads on loopback; resolves once listening. */
  serve(options: BoardServeOptions): Promise<ServedBoard>;
  /** Opens `url` in the user's browser; resolves to why it could not, or null. */
  open(url: string): Promise<string | null>;
}
