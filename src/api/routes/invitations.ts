import { createRoute } from '@hono/zod-openapi';
import type { Hex } from 'viem';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, listEnvelope } from '../openapi.js';
import {
  CompleteInvitationRequest, CompleteInvitationResponse, CreateInvitationRequest, Invitation, InvitationIdParams, InvitationTokenParams, PublicInvitation, WalletQuery,
} from '../../modules/invitations/schemas.js';
import { serializeInvitation } from '../../modules/invitations/serialize.js';
import { serializeMerchant } from '../../modules/merchants/serialize.js';

const create = createRoute({
  method: 'post', path: '/v1/merchants/invitations', tags: ['Merchants'], summary: 'Invite a merchant to bind their own wallet',
  ...access.secretOrSession(),
  request: { headers: IdempotencyHeader, body: jsonBody(CreateInvitationRequest) },
  responses: { 201: jsonResponse(Invitation, 'The invitation, with its single-use token and URL'), ...errors(400, 401, 403, 409, 413, 422) },
});
const list = createRoute({
  method: 'get', path: '/v1/merchants/invitations', tags: ['Merchants'], summary: 'The 50 most recent invitations',
  ...access.secretOrSession(),
  responses: { 200: jsonResponse(listEnvelope(Invitation, 'InvitationList'), 'Invitations with state and wallet'), ...errors(401, 403) },
});
const read = createRoute({
  method: 'get', path: '/v1/merchants/invitations/{token}', tags: ['Merchants'], summary: 'Read an invitation by token (public)',
  ...access.public(), request: { params: InvitationTokenParams, query: WalletQuery },
  responses: { 200: jsonResponse(PublicInvitation, 'The invitation and, with ?wallet=, the message to sign'), ...errors(401, 404, 409, 410, 422) },
});
const complete = createRoute({
  method: 'post', path: '/v1/merchants/invitations/{token}/complete', tags: ['Merchants'], summary: 'Complete onboarding with a wallet signature (public)',
  description: 'The wallet signs the message GET returns: personal_sign (EIP-191) from an EOA, ERC-1271 from a deployed contract wallet, ERC-6492 from a not yet deployed one, checked on the invitation\'s chain. 503 when that chain cannot be reached (nothing is changed).',
  ...access.public(), request: { params: InvitationTokenParams, body: jsonBody(CompleteInvitationRequest) },
  responses: { 201: jsonResponse(CompleteInvitationResponse, 'Merchant created, invitation completed'), ...errors(400, 401, 404, 409, 410, 413, 422, 503) },
});
const revoke = createRoute({
  method: 'post', path: '/v1/merchants/invitations/{id}/revoke', tags: ['Merchants'], summary: 'Revoke a pending invitation',
  description: 'Its token can no longer complete onboarding. The invitation then reads as `expired` with `revoked_at` set; revoking an expired one changes nothing; a completed one is 409. Re-issue by creating a fresh invitation with the same external_id.',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, params: InvitationIdParams },
  responses: { 200: jsonResponse(Invitation, 'The invitation, expired'), ...errors(401, 403, 404, 409) },
});

export const invitationRoutes = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    c.get('services').chains.get(body.chain_id); // 422 unsupported_chain before anything is written: it could never be paid
    return c.json(await c.get('services').invitations.create(platformIdOf(c.get('principal')), body), 201);
  })
  .openapi(list, async (c) => c.json(await c.get('services').invitations.listRecent(platformIdOf(c.get('principal'))), 200))
  .openapi(revoke, async (c) => c.json(await c.get('services').invitations.revoke(platformIdOf(c.get('principal')), c.req.valid('param').id), 200))
  .openapi(read, async (c) => c.json(await c.get('services').invitations.readPublic(c.req.valid('param').token, c.req.valid('query').wallet), 200))
  .openapi(complete, async (c) => {
    const body = c.req.valid('json');
    const r = await c.get('services').invitations.complete(c.req.valid('param').token, { ...body, signature: body.signature as Hex });
    return c.json({ merchant: serializeMerchant(r.merchant), invitation: serializeInvitation(r.invitation, c.get('services').clock.now()) }, 201);
  });
