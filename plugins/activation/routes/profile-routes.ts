/** `GET/POST /api/activation/profiles`, `GET/PUT/DELETE /api/activation/profiles/{name}`. */
import type { PluginContext } from '../../../core/plugin-api.js';
import type { ProfileStore } from '../store/profile-store.js';
import { PROFILE_INPUT_SCHEMA, PROFILE_SCHEMA, PROFILE_UPDATE_SCHEMA } from '../schemas.js';

const REF = { $ref: '#/components/schemas/ActivationProfile' };
const params = { name: { description: 'Profile name (what `rpc activate -profile NAME` names)' } };

/** What an audit record says of a profile: its choices, never its passwords. */
const auditDetail = (body: { mode: string; password: string; connection: string; userConsent: string }) => ({ mode: body.mode, password: body.password, connection: body.connection, userConsent: body.userConsent });

export function registerProfileRoutes(ctx: PluginContext, profiles: ProfileStore): void {
  ctx.openapi.addSchema('ActivationProfile', PROFILE_SCHEMA);
  const tags = ['activation'];
  const audit = () => ctx.useOptional('audit');
  ctx.http.route({
    method: 'get',
    path: '/profiles',
    summary: 'Activation profiles',
    tags,
    permission: 'activation:read',
    responses: { 200: { description: 'Profiles, by name (never their passwords)', schema: { type: 'array', items: REF } } },
    handler: () => profiles.list(),
  });
  ctx.http.route({
    method: 'post',
    path: '/profiles',
    summary: 'Create an activation profile',
    description:
      'What an agent that names this profile gets: the control mode, the AMT password (`generate`, the default: one per device; `fixed`: the same for every device, which the console warns about), ' +
      'the MEBx password (admin control mode), user consent (client control mode allows only `all`), the redirection features, and whether the device dials in over CIRA. Passwords are write-only and sealed.',
    tags,
    permission: 'activation:manage',
    body: PROFILE_INPUT_SCHEMA,
    responses: { 201: { description: 'Created', schema: REF }, 409: { description: 'A profile with this name exists' } },
    async handler(req, reply) {
      const profile = await profiles.create(req.body);
      await audit()?.record({ by: req, action: 'activation.profile.create', target: profile.name, detail: auditDetail(profile) });
      reply.status(201).header('Location', `${ctx.http.prefix}/profiles/${encodeURIComponent(profile.name)}`);
      return profile;
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/profiles/:name',
    summary: 'One activation profile',
    tags,
    permission: 'activation:read',
    params,
    responses: { 200: { description: 'The profile', schema: REF }, 404: { description: 'Unknown profile' } },
    handler: (req) => profiles.require(req.params.name),
  });
  ctx.http.route({
    method: 'put',
    path: '/profiles/:name',
    summary: 'Replace an activation profile',
    description: 'The profile as a whole; a password left out keeps the one stored while the choice still wants it. Devices activated already keep what they got.',
    tags,
    permission: 'activation:manage',
    params,
    body: PROFILE_UPDATE_SCHEMA,
    responses: { 200: { description: 'The profile', schema: REF }, 404: { description: 'Unknown profile' } },
    async handler(req) {
      const profile = await profiles.update(req.params.name, req.body);
      await audit()?.record({ by: req, action: 'activation.profile.update', target: profile.name, detail: { ...auditDetail(profile), passwordChanged: req.body.fixedPassword !== undefined || req.body.mebxPassword !== undefined } });
      return profile;
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/profiles/:name',
    summary: 'Delete an activation profile',
    tags,
    permission: 'activation:manage',
    params,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown profile' } },
    async handler(req) {
      await profiles.delete(req.params.name);
      await audit()?.record({ by: req, action: 'activation.profile.delete', target: req.params.name });
    },
  });
}
