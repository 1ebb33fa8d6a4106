// How the profile summaries name a frame of a V8 profile (a CPU profile's node or a sampling
// heap profile's): the function and its place, paths cut to the project's own folders.

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** A source's path from the project's src/, bench/ or node_modules/ on ('' for a frame without one). */
export function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(/^.*\/(src|node_modules|bench)\//, '$1/');
}

/** A function as the summaries name it: its name (or "(anonymous)") and where it is. */
export function frameName({ callFrame }: { callFrame: CallFrame }): string {
  return `${callFrame.functionName || '(anonymous)'} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`;
}
