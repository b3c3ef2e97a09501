import { describe, expect, it } from 'vitest';
import { createLogger, redactSecrets } from '../../src/lib/logger.js';
import { createHarness } from '../helpers/harness.js';

describe('bearer tokens in URLs never reach the logs', () => {
  it('masks every token kind, subscription links (sub_live_) as checkout links (cs_live_)', () => {
    const text = 'GET /v1/subscriptions/authorize/sub_live_AbC123xyz and /checkout/cs_live_Q9z sk_live_k pk_live_p moi_live_m whsec_w';
    expect(redactSecrets(text)).toBe('GET /v1/subscriptions/authorize/sub_live_[redacted] and /checkout/cs_live_[redacted] sk_live_[redacted] pk_live_[redacted] moi_live_[redacted] whsec_[redacted]');
  });

  it('a public subscription-link request is logged without its token', async () => {
    const lines: string[] = [];
    const h = await createHarness({ logger: createLogger('trace', 'production', { write: (s: string) => void lines.push(s) }) });
    try {
      const token = 'sub_live_Zz9SecretLinkToken0123456789';
      const res = await h.request('GET', `/v1/subscriptions/authorize/${token}`);
      expect(res.status).toBe(404);
      expect(lines.some((l) => l.includes('sub_live_[redacted]'))).toBe(true);
      expect(lines.join('\n')).not.toContain('Zz9SecretLinkToken');
    } finally {
      await h.close();
    }
  });
});
