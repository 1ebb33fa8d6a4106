// What a route handler returns; the emulator's server turns a Reply into a response.
export interface Reply {
  status: number;
  /** JSON body; undefined for an empty body (204). */
  body?: unknown;
  headers?: Record<string, string>;
}
