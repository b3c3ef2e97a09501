import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption (AES-256-GCM) for data at rest that must be readable later but may carry
 * secrets, e.g. stored idempotent responses that include a just-created secret key. The key is derived
 * from the server secret with HKDF and a purpose label, so one secret can serve several purposes.
 */
export function createSealer(secrets: string | readonly string[], purpose: string) {
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) =>
    Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), Buffer.from(purpose, 'utf8'), 32)));
  if (keys.length === 0) throw new Error('createSealer: no secret');
  const openWith = (key: Buffer, raw: Buffer) => {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  };
  return {
    /** Seals with the first secret. */
    seal(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keys[0]!, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
    },
    /**
     * Opens with whichever secret sealed it (during a rotation the previous secrets follow the current one):
     * GCM's tag refuses a wrong key, so trying each in turn is safe. Throws when none opens it.
     */
    open(sealed: string): string {
      if (!sealed.startsWith('v1:')) throw new Error('not sealed');
      const raw = Buffer.from(sealed.slice(3), 'base64');
      for (const key of keys.slice(0, -1)) {
        try {
          return openWith(key, raw);
        } catch {
          /* sealed with another secret */
        }
      }
      return openWith(keys.at(-1)!, raw);
    },
  };
}
export type Sealer = ReturnType<typeof createSealer>;
