/**
 * Child process: strong-soap's own server (its documented `soap.listen` on a bare node:http server)
 * serving the MPSInterfaceService WSDL with a trivial IsMachineConnected, and printing its port. The
 * SOAP benchmark loads it like the gateway: what strong-soap alone does with the same requests,
 * with no authentication, no request guard and no presence lookup.
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { renderWsdl, SERVICE_PATH, serviceNamespace } from '../../plugins/soap-mps/wsdl.js';

interface StrongSoap {
  soap: { listen(server: unknown, options: Record<string, unknown>): unknown };
}
// strong-soap is CommonJS without type declarations.
const { soap } = createRequire(import.meta.url)('strong-soap') as StrongSoap;

const services = {
  MPSInterfaceService: {
    MPSNInterfaceSoapPortType: {
      IsMachineConnected: (args: { Machine?: { SystemName?: unknown } }) => ({ IsConnected: typeof args?.Machine?.SystemName === 'string' }),
    },
  },
};

const server = createServer();
server.keepAliveTimeout = 5000;
// prettyResponse false as the gateway sets it; everything else is strong-soap's default.
soap.listen(server, { path: SERVICE_PATH, services, xml: renderWsdl(serviceNamespace('http://intel.com/wbem'), 'http://localhost'), prettyResponse: false });
// soap.listen attaches its request listener once the WSDL has loaded.
while (server.listenerCount('request') === 0) await sleep(10);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
