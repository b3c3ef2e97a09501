import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { listen, selfUrl } from '../../src/server.js';

/**
 * Issue 26 item 9: the devnet server listened on every interface while its keys and admin token are well known.
 * main.ts listens through `listen` with the configured HOST. 127.0.0.2 is a loopback address (127.0.0.0/8) that is
 * not 127.0.0.1: a server bound to every interface answers there, one bound to 127.0.0.1 does not.
 */
const app = { fetch: () => new Response('ok') };

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the HTTP server binding', () => {
  it('on the devnet by default: 127.0.0.1 only, not another address of this machine', async () => {
    const config = loadConfig({ PORT: '0' }, []);
    const { server, address } = await listen(app, config);
    try {
      expect(address.address).toBe('127.0.0.1');
      expect(await reachable('127.0.0.1', address.port)).toBe(true);
      expect(await reachable('127.0.0.2', address.port)).toBe(false);
      expect(await (await fetch(`${selfUrl(config, address.port)}/health`)).text()).toBe('ok');
    } finally {
      server.close();
    }
  });

  it('with HOST=0.0.0.0 (the production default): every interface', async () => {
    const config = loadConfig({ PORT: '0', HOST: '0.0.0.0' }, []);
    const { server, address } = await listen(app, config);
    try {
      expect(address.address).toBe('0.0.0.0');
      expect(await reachable('127.0.0.2', address.port)).toBe(true);
      expect(selfUrl(config, address.port)).toBe(`http://127.0.0.1:${address.port}`);
    } finally {
      server.close();
    }
  });
});
