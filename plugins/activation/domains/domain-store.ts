/**
 * Provisioning domains: a DNS suffix and the certificate admin control mode signs with. The PFX and
 * its password are sealed together and never leave but for an activation, which reads them once and
 * keeps the key in memory while the gateway runs (as the master key is).
 */
import { randomUUID } from 'node:crypto';
import type { KeyValueStore, Logger, PluginSecrets } from '../../../core/plugin-api.js';
import { createSerialQueue } from '../../../core/util/serial-queue.js';
import { ActivationErrors } from '../errors.js';
import type { DomainInput, ProvisioningDomain } from '../schemas.js';
import { readProvisioningCertificate, suffixMatches, type ProvisioningCertificate } from './provisioning-certificate.js';

interface StoredDomain extends Omit<ProvisioningDomain, 'expiresSoon'> {
  sealedPfx: string;
}

export interface DomainStore {
  list(): ProvisioningDomain[];
  create(input: DomainInput): Promise<ProvisioningDomain>;
  delete(id: string): Promise<void>;
  /** The domain a device's DNS suffix falls under (the longest suffix that matches), if any. */
  forSuffix(dnsSuffix: string): ProvisioningDomain | undefined;
  /** The domain's certificate and key, read from the sealed PFX (once per domain while the gateway runs). */
  certificate(id: string): Promise<ProvisioningCertificate>;
}

const DAY_MS = 86_400_000;

export async function openDomainStore(store: KeyValueStore, secrets: PluginSecrets, warningDays: number, logger: Logger): Promise<DomainStore> {
  const byId = new Map<string, StoredDomain>();
  for await (const page of store.pages<StoredDomain>()) for (const [, domain] of page) byId.set(domain.id, domain);
  const serial = createSerialQueue();
  const opened = new Map<string, Promise<ProvisioningCertificate>>();
  const view = ({ sealedPfx: _sealed, ...domain }: StoredDomain): ProvisioningDomain => ({ ...domain, expiresSoon: Date.parse(domain.expiresAt) - Date.now() < warningDays * DAY_MS });
  const list = () => [...byId.values()].sort((a, b) => a.suffix.localeCompare(b.suffix)).map(view);
  for (const domain of list()) if (domain.expiresSoon) logger.warn('a provisioning certificate expires soon (or has expired): upload its successor', { suffix: domain.suffix, expiresAt: domain.expiresAt });
  return {
    list,
    create: (input) =>
      serial(async () => {
        const suffix = input.suffix.toLowerCase();
        if ([...byId.values()].some((d) => d.suffix === suffix)) throw ActivationErrors.domainExists(suffix);
        const certificate = await readProvisioningCertificate(input.certificate, input.certificatePassword);
        if (!suffixMatches(certificate.commonName, suffix)) throw ActivationErrors.certificateUnreadable(`it is issued to '${certificate.commonName}', not within '${suffix}'`);
        const leaf = certificate.chain[0]!;
        const domain: StoredDomain = {
          id: randomUUID(),
          suffix,
          subject: leaf.subject.replace(/\n/g, ', '),
          issuer: leaf.issuer.replace(/\n/g, ', '),
          rootSha256: certificate.rootHashes.sha256,
          expiresAt: new Date(leaf.validTo).toISOString(),
          createdAt: new Date().toISOString(),
          sealedPfx: secrets.seal(JSON.stringify({ pfx: input.certificate.replace(/\s+/g, ''), password: input.certificatePassword })),
        };
        await store.put(domain.id, domain);
        byId.set(domain.id, domain);
        opened.set(domain.id, Promise.resolve(certificate));
        return view(domain);
      }),
    delete: (id) =>
      serial(async () => {
        if (!byId.has(id)) throw ActivationErrors.domainNotFound(id);
        await store.del(id);
        byId.delete(id);
        opened.delete(id);
      }),
    forSuffix(dnsSuffix) {
      const wanted = dnsSuffix.toLowerCase();
      const matches = list().filter((d) => wanted === d.suffix || wanted.endsWith(`.${d.suffix}`));
      return matches.sort((a, b) => b.suffix.length - a.suffix.length)[0];
    },
    certificate(id) {
      const domain = byId.get(id);
      if (!domain) return Promise.reject(ActivationErrors.domainNotFound(id));
      let certificate = opened.get(id);
      if (!certificate) {
        // An unreadable seal is the master key's problem and says so (GW_ERR_UNSEAL_FAILED), never a fresh start.
        const { pfx, password } = JSON.parse(secrets.unseal(domain.sealedPfx)) as { pfx: string; password: string };
        certificate = readProvisioningCertificate(pfx, password);
        opened.set(id, certificate);
        certificate.catch(() => opened.delete(id));
      }
      return certificate;
    },
  };
}
