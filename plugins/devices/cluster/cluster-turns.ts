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
 * Two leases, neither in the gate's own code:
 * - `device:<key>` around each connection: the gate's turn provider (the seam of `DeviceTurnProvider`,
 *   taken by gate/device-turns.ts after this gateway's own turn of the device and given back after
 *   it closed its connection), so that the device never sees two connections from the cluster at
 *   once, credentials or not;
 * - `sign-in:<key>` from a sign-in plan to its settlement. Under it the memory is first brought up
 *   to date (the last holder wrote its outcome before giving the lease back), so failed logins
 *   count across the cluster and no two instances spend the same lockout budget.
 */
import type { PluginCluster } from '../../../core/plugin-api.js';
import type { DeviceTurnProvider } from '../api.js';
import type { SignInMemory, SignInPlan } from '../sign-in/sign-in-memory.js';

/** The cluster-wide turn of each device, as the gate's turn provider. */
export function clusterTurnProvider(cluster: PluginCluster): DeviceTurnProvider {
  return {
    plugin: 'devices (cluster)',
    take: (key) =>
      new Promise((taken, refused) => {
        let giveBack!: () => void;
        const given = new Promise<void>((r) => (giveBack = r));
        // The lease is held while `given` is pending; it is deleted before `held` settles.
        const held = cluster.exclusive(`device:${key}`, () => {
          taken(async () => {
            giveBack();
            await held;
          });
          return given;
        });
        held.catch(refused);
      }),
  };
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
