/**
 * The protection API for the deployed function: HTTPS on 127.0.0.1 with a self-signed certificate for
 * `localhost` (made with openssl), which the function and the CLI trust through NODE_EXTRA_CA_CERTS, as a
 * real deployment's HTTPS API. The filter status and each network's figures are set by the test.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A running HTTPS API. */
export interface HttpsApi {
  /** `https://localhost:PORT`. */
  readonly url: string;
  /** The certificate (PEM file) to trust. */
  readonly certFile: string;
  readonly key: string;
  /** The filter status it answers. */
  filterStatus: string;
  /** Each network's `traffic.in_pps`. */
  readonly pps: Record<string, number>;
  /** Request paths in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Starts the API on a free port of 127.0.0.1, with a new certificate written to `dir`. */
export async function startHttpsApi(dir: string, key: string): Promise<HttpsApi> {
  const certFile = join(dir, 'api-cert.pem');
  const keyFile = join(dir, 'api-key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  const api = {
    url: '',
    certFile,
    key,
    filterStatus: 'active',
    pps: {} as Record<string, number>,
    requests: [] as string[],
    close: async () => {},
  };
  const server = https.createServer(
    { cert: readFileSync(certFile), key: readFileSync(keyFile) },
    (req, res) => {
      const path = (req.url ?? '').split('?', 1)[0]!;
      api.requests.push(path);
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${key}`) return reply(401, { error: 'unauthorized' });
      if (path === '/api/filter/status') return reply(200, { status: api.filterStatus });
      if (path === '/api/user') return reply(200, { id: 'user-1', email: 'owner@example.com' });
      const match = /^\/api\/networks\/([^/]+)\/realtime$/.exec(path);
      if (match !== null) {
        const id = decodeURIComponent(match[1]!);
        return reply(200, { networkId: id, traffic: { in_pps: api.pps[id] ?? 0 } });
      }
      return reply(404, { error: 'not found' });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `https://localhost:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return api;
}
