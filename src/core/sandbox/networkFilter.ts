import * as dns from 'node:dns';
import * as http from 'node:http';
import * as net from 'node:net';

/**
 * The only way out of a sandboxed command's network: an HTTP proxy (CONNECT for TLS and any TCP,
 * absolute-URI requests for plain HTTP) that listens on a Unix socket bound into the sandbox,
 * where the command's network namespace has no other route. It lets through exactly the domains
 * allowed, and loopback only when allowed.
 *
 * Invariants:
 * - a host is let through when it equals an allowed domain, or is below a `*.domain` entry;
 *   an IP address only when listed exactly;
 * - loopback (`localhost`, 127.0.0.0/8, ::1, and any name that resolves to one of them) only
 *   when `allowLoopback`, so an allowed name that resolves to this machine does not open it;
 * - every refusal is answered `403` with a body saying why, and recorded, so the command's
 *   result can name the blocked domains.
 */

export interface NetworkRules {
  allow: readonly string[];
  allowLoopback: boolean;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}

/** Whether the rules let `host` through by its name (the address it resolves to is checked on connect). */
export function hostAllowed(host: string, rules: NetworkRules): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isLoopbackHost(h)) return rules.allowLoopback;
  return rules.allow.some((pattern) => (pattern.startsWith('*.') ? h.endsWith(pattern.slice(1)) : h === pattern));
}

export class NetworkFilter {
  private readonly server: http.Server;
  private readonly blockedHosts = new Set<string>();
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly rules: NetworkRules) {
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => this.tunnel(req, client, head));
    this.server.on('connection', (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Hosts a command asked for and was refused, as `host:port`. */
  get blocked(): readonly string[] {
    return [...this.blockedHosts];
  }

  /** Listens on the Unix socket `socketPath` (bound into a bubblewrap sandbox). */
  listen(socketPath: string): Promise<void> {
    return this.listenOn({ path: socketPath }).then(() => undefined);
  }

  /** Listens on a free port of 127.0.0.1 (the one a Seatbelt profile lets a command reach) and resolves to it. */
  listenOnLoopback(): Promise<number> {
    return this.listenOn({ host: '127.0.0.1', port: 0 }).then(() => (this.server.address() as net.AddressInfo).port);
  }

  private listenOn(where: net.ListenOptions): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(where, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  close(): void {
    this.server.close();
    for (const socket of this.sockets) socket.destroy();
  }

  private tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    client.on('error', () => undefined);
    const { host, port } = splitHostPort(req.url ?? '', 443);
    void this.open(host, port).then((upstream) => {
      if (typeof upstream === 'string') {
        client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${upstream}\n`);
        return;
      }
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('Arbor sandbox: only absolute http:// requests go through this proxy.\n');
      return;
    }
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    void this.open(target.hostname, port).then((upstream) => {
      if (typeof upstream === 'string') {
        res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`${upstream}\n`);
        return;
      }
      const out = http.request({ createConnection: () => upstream, method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers });
      out.on('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', (err) => res.headersSent ? res.destroy() : res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`Arbor sandbox: ${err.message}\n`));
      req.pipe(out);
    });
  }

  /** A connection to `host:port` when the rules allow it, else why not (and the refusal is recorded). */
  private async open(host: string, port: number): Promise<net.Socket | string> {
    const refuse = (why: string): string => {
      this.blockedHosts.add(`${host}:${port}`);
      return `Arbor sandbox: ${host}:${port} is blocked (${why}).`;
    };
    if (!host || !Number.isInteger(port) || port < 1 || port > 65_535) return refuse('not a host and port');
    if (!hostAllowed(host, this.rules)) {
      return refuse(isLoopbackHost(host) ? 'loopback is closed; arbor.sandbox.network.allowLoopback opens it' : 'not in arbor.sandbox.network.allow');
    }
    let address: string;
    try {
      address = net.isIP(host.replace(/^\[|\]$/g, '')) ? host.replace(/^\[|\]$/g, '') : (await dns.promises.lookup(host)).address;
    } catch (err) {
      return `Arbor sandbox: ${host} cannot be resolved (${(err as Error).message}).`;
    }
    if (isLoopbackHost(address) && !this.rules.allowLoopback) return refuse(`it resolves to loopback ${address}`);
    return new Promise((resolve) => {
      const socket = net.connect({ host: address, port });
      socket.once('connect', () => resolve(socket));
      socket.once('error', (err) => resolve(`Arbor sandbox: ${host}:${port} could not be reached (${err.message}).`));
    });
  }
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(authority) ?? /^([^:]+)(?::(\d+))?$/.exec(authority);
  if (!m) return { host: '', port: 0 };
  return { host: m[1], port: m[2] ? Number(m[2]) : defaultPort };
}
