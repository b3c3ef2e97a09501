import http from 'node:http';
import https from 'node:https';

/** Keep-alive agents kept (one per endpoint and URL); the least recently used is closed past this. */
const MAX_AGENTS = 1_000;

/**
 * Each endpoint's keep-alive agent (at most perEndpoint sockets): later attempts skip the TCP (and TLS)
 * handshake. Keyed by endpoint and URL, so no socket serves another endpoint or an edited URL; every new
 * socket still connects through the guarded lookup (send.ts), so the checked address is the one used.
 */
export function createAgentPool(perEndpoint: number, timeoutMs: number) {
  const agents = new Map<string, http.Agent>();
  return {
    of(endpointId: string, url: string): http.Agent {
      const key = `${endpointId} ${url}`;
      let agent = agents.get(key);
      if (agent) {
        agents.delete(key); // re-inserted last: the map's order is the order of use
      } else {
        const o = { keepAlive: true, maxSockets: perEndpoint, maxFreeSockets: perEndpoint, timeout: timeoutMs };
        agent = url.startsWith('https:') ? new https.Agent(o) : new http.Agent(o);
        if (agents.size >= MAX_AGENTS) {
          const [oldest, a] = agents.entries().next().value as [string, http.Agent];
          agents.delete(oldest);
          a.destroy();
        }
      }
      agents.set(key, agent);
      return agent;
    },
    destroyAll() {
      for (const a of agents.values()) a.destroy();
      agents.clear();
    },
  };
}
