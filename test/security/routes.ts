import type { z } from 'zod';
import type { App } from '../../src/app.js';

/**
 * Every API route, read from the app's own OpenAPI registry: a route added later is picked up by the
 * generated security tests without anyone remembering to list it.
 */
export type RouteDef = {
  method: string;
  /** OpenAPI form, e.g. /v1/orders/{id} */
  path: string;
  key: string;
  security: string[];
  body: z.ZodType | null;
  query: z.ZodType | null;
  params: z.ZodType | null;
  pathParams: string[];
};

type Registered = {
  type: string;
  route?: {
    method: string;
    path: string;
    security?: Record<string, string[]>[];
    request?: { body?: { content?: Record<string, { schema: z.ZodType }> }; query?: z.ZodType; params?: z.ZodType };
  };
};

export function apiRoutes(app: App): RouteDef[] {
  const defs = (app.openAPIRegistry.definitions as Registered[]).filter((d) => d.type === 'route' && d.route);
  return defs.map(({ route: r }) => ({
    method: r!.method.toUpperCase(),
    path: r!.path,
    key: `${r!.method.toUpperCase()} ${r!.path}`,
    security: (r!.security ?? []).flatMap((s) => Object.keys(s)),
    body: r!.request?.body?.content?.['application/json']?.schema ?? null,
    query: r!.request?.query ?? null,
    params: r!.request?.params ?? null,
    pathParams: [...r!.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
  }));
}

/** /v1/orders/{id} with {id: 'ord_1'} → /v1/orders/ord_1 (values URL-encoded). */
export const fill = (path: string, values: Record<string, string>) =>
  path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? `missing_${name}`));

export const isPublic = (r: RouteDef) => r.security.length === 0;
export const isAdmin = (r: RouteDef) => r.security.includes('admin');
