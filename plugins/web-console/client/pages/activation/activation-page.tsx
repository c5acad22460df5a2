/**
 * Activation: the profiles agents name, the provisioning certificates admin control mode signs with,
 * and what each agent did (records, approvals waiting, one-time codes for deactivation).
 */
import { can, type Session } from '../../session.js';
import { ActivationDomains } from './activation-domains.js';
import { ActivationProfiles } from './activation-profiles.js';
import { ActivationRecords } from './activation-records.js';

export function ActivationPage({ session }: { session: Session }) {
  const manager = can(session, 'activation:manage');
  return (
    <section>
      <h1>Activation</h1>
      <p>
        Machines activate themselves with Intel's <code>rpc</code> agent: <code>rpc activate -u wss://{location.host}/activate -profile NAME</code>. Each gets the
        profile's control mode and, by default, an AMT password of its own.
      </p>
      <ActivationProfiles manager={manager} />
      <ActivationDomains manager={manager} />
      <ActivationRecords manager={manager} />
    </section>
  );
}
