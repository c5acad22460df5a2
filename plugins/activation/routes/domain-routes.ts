/** `GET/POST /api/activation/domains`, `DELETE /api/activation/domains/{id}`: provisioning certificates by DNS suffix. */
import type { PluginContext } from '../../../core/plugin-api.js';
import type { DomainStore } from '../domains/domain-store.js';
import { DOMAIN_INPUT_SCHEMA, DOMAIN_SCHEMA } from '../schemas.js';

const REF = { $ref: '#/components/schemas/ProvisioningDomain' };

export function registerDomainRoutes(ctx: PluginContext, domains: DomainStore): void {
  ctx.openapi.addSchema('ProvisioningDomain', DOMAIN_SCHEMA);
  const tags = ['activation'];
  ctx.http.route({
    method: 'get',
    path: '/domains',
    summary: 'Provisioning domains',
    description: 'Admin control mode signs with the certificate of the domain the device\'s DNS suffix falls under. `expiresSoon` flags a certificate that expires within `certificateWarningDays`.',
    tags,
    permission: 'activation:read',
    responses: { 200: { description: 'Domains (never their certificate files or passwords)', schema: { type: 'array', items: REF } } },
    handler: () => domains.list(),
  });
  ctx.http.route({
    method: 'post',
    path: '/domains',
    summary: 'Store a provisioning certificate for a DNS suffix',
    description:
      'The PKCS#12 file (base64) must open with the password, hold an RSA key and its certificate with the AMT provisioning mark (extended key usage 2.16.840.1.113741.1.2.3, or OU "Intel(R) Client Setup Certificate"), ' +
      'issued to a name within the suffix, and every certificate up to the self-signed root (whose hash the firmware must trust). The file and password are sealed and never returned.',
    tags,
    permission: 'activation:manage',
    body: DOMAIN_INPUT_SCHEMA,
    responses: { 201: { description: 'Stored', schema: REF }, 409: { description: 'A certificate for this suffix is stored' }, 422: { description: 'The certificate cannot be used (`GW_ERR_ACTIVATION_CERTIFICATE_UNREADABLE` says why)' } },
    async handler(req, reply) {
      const domain = await domains.create(req.body);
      await ctx.useOptional('audit')?.record({ by: req, action: 'activation.domain.create', target: domain.id, detail: { suffix: domain.suffix, subject: domain.subject, rootSha256: domain.rootSha256, expiresAt: domain.expiresAt } });
      reply.status(201).header('Location', `${ctx.http.prefix}/domains/${domain.id}`);
      return domain;
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/domains/:id',
    summary: 'Delete a provisioning domain',
    tags,
    permission: 'activation:manage',
    params: { id: { description: 'Domain id' } },
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown domain' } },
    async handler(req) {
      await domains.delete(req.params.id);
      await ctx.useOptional('audit')?.record({ by: req, action: 'activation.domain.delete', target: req.params.id });
    },
  });
}
