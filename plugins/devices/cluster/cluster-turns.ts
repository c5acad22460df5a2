/**
 * The device gate's turns and sign-in memory across the instances of a cluster. Decided: a
 * cluster-wide turn per device (a lease, core/cluster/leases.ts) rather than ownership of devices
 * by instance. A LAN device is reachable from every instance and none of them is better placed to
 * own it: ownership would forward every LAN operation to one instance and make that instance's
 * death a gap in management until ownership moved, while a turn costs two statements per operation
 * and nothing when an instance dies (a down instance's leases are taken over). A CIRA device is
 * the exception that ownership decides anyway: only the instance holding its tunnel can reach it,
 * and requests are forwarded there (plugins/cira/cluster/tunnel-routing.ts), where the local turn
 * serialises its operations.
 *
 * Two leases, both taken only by the wrappers below, so the gate's own code is unchanged:
 * - `sign-in:<key>` from a sign-in plan to its settlement. Under it the memory is first brought up
 *   to date (the last holder wrote its outcome before giving the lease back), so failed logins
 *   count across the cluster and no two instances spend the same lockout budget;
 * - `device:<key>` around each connection (the turn), so that the device never sees two
 *   connections from the cluster at once, credentials or not.
 */
import type { PluginCluster } from '../../../core/plugin-api.js';
import type { DeviceTurns } from '../gate/device-turns.js';
import type { SignInMemory, SignInPlan } from '../sign-in/sign-in-memory.js';

/** The local turns, each also holding the device's cluster-wide turn. */
export function clusterDeviceTurns(local: DeviceTurns, cluster: PluginCluster): DeviceTurns {
  return Object.create(local, {
    run: { value: <T>(key: string, work: () => Promise<T>) => local.run(key, () => cluster.exclusive(`device:${key}`, work)) },
  }) as DeviceTurns;
}

/** The sign-in memory, each plan holding the device's cluster-wide sign-in lease until it settles. */
export function clusterSignInMemory(memory: SignInMemory, cluster: PluginCluster): SignInMemory {
  const planWhenFree: SignInMemory['planWhenFree'] = (address, candidates, options) =>
    new Promise<SignInPlan>((resolve, reject) => {
      let settled!: () => void;
      const done = new Promise<void>((r) => (settled = r));
      cluster
        .exclusive(`sign-in:${address}`, async () => {
          await cluster.catchUp();
          const plan = await memory.planWhenFree(address, candidates, options);
          resolve({
            ...plan,
            async settle(report) {
              try {
                // Written before the lease is given back: the next holder reads it.
                await plan.settle(report);
              } finally {
                settled();
              }
            },
          });
          await done;
        })
        .catch(reject);
    });
  return Object.create(memory, { planWhenFree: { value: planWhenFree } }) as SignInMemory;
}
