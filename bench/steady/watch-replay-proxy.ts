// A pass-through proxy between the operator and the Kubernetes emulator that can record what
// the operator's AgentDeployment watch received during one touch round and write it into that
// watch again later. Why: a touch round measures the operator while the emulator applies 5,000
// patches and fans out their events on the same two cores, and on this kind of machine the
// operator's CPU per event then moves by a third from run to run, more than the changes it is
// meant to compare. A replayed round costs the emulator nothing; the operator does the same
// work per event (reading the stream, cutting managedFields, parsing, the reflector's apply,
// the no-op pass) with the other core idle, so two commits can be told apart.
//
// The replayed events keep their recorded resourceVersions; only the touch annotation's value
// changes (alternating between two values), so that each event differs from the cached object
// and the informer hands it to the controller, as a touch does. A bookmark with the newest
// resourceVersion the watch has seen follows each replay, so that a watch restarted afterwards
// resumes where the server is, not at a replayed (older) version.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const NEWLINE = 0x0a;
const RESOURCE_VERSION = /"resourceVersion":"(\d+)"/g;

/** One open AgentDeployment watch of the operator, as the proxy forwards it. */
interface ForwardedWatch {
  response: http.ServerResponse;
  /** The last chunk forwarded ended a line: bytes written now start a new event. */
  atLineBoundary: boolean;
}

export class WatchReplayProxy {
  private readonly watches = new Set<ForwardedWatch>();
  private recording: Buffer[] | undefined;
  private newestVersion = 0n;
  private readonly agent = new http.Agent({ keepAlive: true });

  private constructor(
    private readonly server: http.Server,
    private readonly upstream: URL,
    readonly url: string,
  ) {}

  /** Listens on a free loopback port and forwards every request to `upstreamUrl`. */
  static async start(upstreamUrl: string, watchedCollection: string): Promise<WatchReplayProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const proxy = new WatchReplayProxy(server, new URL(upstreamUrl), `http://127.0.0.1:${port}`);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) =>
      proxy.forward(request, response, watchedCollection),
    );
    return proxy;
  }

  startRecording(): void {
    this.recording = [];
  }

  /**
   * Stops recording and returns the recorded MODIFIED events, one line each. Throws unless
   * every one carries the touch annotation `"<key>":"<value>"` exactly once (what a replay
   * rewrites).
   */
  stopRecording(annotation: string): string[] {
    const chunks = this.recording ?? [];
    this.recording = undefined;
    const lines = Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"type":"MODIFIED"'));
    for (const line of lines) {
      if (line.split(annotation).length !== 2) {
        throw new Error(`a recorded watch event does not carry ${annotation} exactly once`);
      }
    }
    return lines;
  }

  /**
   * Writes `events` (one line each) and then a bookmark into the operator's one open watch:
   * all at once, or `perSecond` of them a second, each in its own write, as events arrive
   * from a server that applies writes one by one (a touch round arrives at about 1,500 a second).
   */
  async replay(
    events: readonly Buffer[],
    kind: string,
    apiVersion: string,
    perSecond?: number,
  ): Promise<void> {
    const watch = await this.watchAtLineBoundary();
    if (perSecond === undefined) {
      watch.response.write(Buffer.concat([...events, this.bookmark(kind, apiVersion)]));
      return;
    }
    const start = performance.now();
    let written = 0;
    while (written < events.length) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      // An upstream event cut in two (rare: nothing changes while a replay runs) is finished first.
      if (!watch.atLineBoundary) continue;
      const due = Math.min(events.length, Math.floor(((performance.now() - start) / 1000) * perSecond));
      for (; written < due; written += 1) watch.response.write(events[written]);
    }
    watch.response.write(this.bookmark(kind, apiVersion));
  }

  /** A bookmark at the newest resourceVersion the watch has carried. */
  private bookmark(kind: string, apiVersion: string): Buffer {
    const bookmark = JSON.stringify({
      type: 'BOOKMARK',
      object: { kind, apiVersion, metadata: { resourceVersion: String(this.newestVersion) } },
    });
    return Buffer.from(`${bookmark}\n`);
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.response.destroy();
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async watchAtLineBoundary(): Promise<ForwardedWatch> {
    const deadline = performance.now() + 10_000;
    for (;;) {
      if (this.watches.size > 1) {
        throw new Error(
          `the operator has ${this.watches.size} AgentDeployment watches open; replay expects one`,
        );
      }
      const [watch] = this.watches;
      if (watch?.atLineBoundary) return watch;
      if (performance.now() > deadline) {
        throw new Error('no AgentDeployment watch of the operator was between two events for 10 s');
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private forward(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    watchedCollection: string,
  ): void {
    const target = new URL(request.url ?? '/', this.upstream);
    const isWatch =
      target.pathname.endsWith(`/${watchedCollection}`) &&
      (target.searchParams.get('watch') === '1' || target.searchParams.get('watch') === 'true');
    const upstreamRequest = http.request(
      target,
      {
        method: request.method,
        headers: { ...request.headers, host: this.upstream.host },
        agent: this.agent,
      },
      (upstreamResponse) => {
        const headers = { ...upstreamResponse.headers };
        // Node chunks the forwarded body itself.
        delete headers['transfer-encoding'];
        delete headers.connection;
        response.writeHead(upstreamResponse.statusCode ?? 502, headers);
        const watch: ForwardedWatch | undefined =
          isWatch && upstreamResponse.statusCode === 200 ? { response, atLineBoundary: true } : undefined;
        if (watch) {
          this.watches.add(watch);
          // A watch's headers go out now, as the server sent them, not with its first event.
          response.flushHeaders();
        }
        upstreamResponse.on('data', (chunk: Buffer) => {
          if (watch) {
            watch.atLineBoundary = chunk[chunk.length - 1] === NEWLINE;
            this.recording?.push(chunk);
            this.noteVersions(chunk);
          }
          response.write(chunk);
        });
        const finish = (): void => {
          if (watch) this.watches.delete(watch);
          response.end();
        };
        upstreamResponse.on('end', finish);
        upstreamResponse.on('error', () => {
          if (watch) this.watches.delete(watch);
          response.destroy();
        });
      },
    );
    upstreamRequest.on('error', () => response.destroy());
    // The operator closing its end (a watch it stops) closes the upstream request too.
    response.on('close', () => {
      upstreamRequest.destroy();
      for (const watch of this.watches) if (watch.response === response) this.watches.delete(watch);
    });
    request.pipe(upstreamRequest);
  }

  private noteVersions(chunk: Buffer): void {
    for (const match of chunk.toString('utf8').matchAll(RESOURCE_VERSION)) {
      const version = BigInt(match[1] ?? '0');
      if (version > this.newestVersion) this.newestVersion = version;
    }
  }
}
