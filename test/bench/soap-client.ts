/** Raw SOAP 1.1 calls to MPSInterfaceService for the SOAP benchmark. */
import { setTimeout as sleep } from 'node:timers/promises';

export const MPS_NS = 'http://intel.com/wbem/MPSInterface/2010/11';

export function soapEnvelope(inner: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="${MPS_NS}"><s:Body>${inner}</s:Body></s:Envelope>`;
}

export function soapHeaders(operation: string, basic: string): Record<string, string> {
  return { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${MPS_NS}/${operation}"`, authorization: basic };
}

export const isMachineConnected = (name: string) => soapEnvelope(`<m:IsMachineConnected><m:Machine><m:SystemName>${name}</m:SystemName></m:Machine></m:IsMachineConnected>`);

export async function soapCall(serviceUrl: string, operation: string, body: string, basic: string): Promise<string> {
  const res = await fetch(serviceUrl, { method: 'POST', headers: soapHeaders(operation, basic), body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${operation} answered ${res.status}: ${text.slice(0, 500)}`);
  return text;
}

/** Waits until the SOAP listener answers ?wsdl (it starts once the main listener serves). */
export async function waitForSoap(serviceUrl: string, basic: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${serviceUrl}?wsdl`, { headers: { authorization: basic } });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`MPSInterfaceService at ${serviceUrl} did not answer within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** EnumerateConnectedMachines, then Pull at `maxElements` until EndOfSequence; returns the names counted. */
export async function enumerateAll(serviceUrl: string, basic: string, maxElements: number): Promise<{ items: number; pulls: number }> {
  const started = await soapCall(serviceUrl, 'EnumerateConnectedMachines', soapEnvelope('<m:EnumerateConnectedMachines/>'), basic);
  const context = /<(?:\w+:)?EnumerationContext>([^<]+)</.exec(started)?.[1];
  if (!context) throw new Error(`no EnumerationContext in ${started.slice(0, 300)}`);
  let items = 0;
  let pulls = 0;
  for (;;) {
    const page = await soapCall(serviceUrl, 'Pull', soapEnvelope(`<m:Pull><m:EnumerationContext>${context}</m:EnumerationContext><m:MaxElements>${maxElements}</m:MaxElements></m:Pull>`), basic);
    pulls++;
    items += page.match(/<(?:\w+:)?SystemName>/g)?.length ?? 0;
    if (/EndOfSequence/.test(page)) break;
    if (pulls > 1_000_000) throw new Error('the enumeration never ended');
  }
  return { items, pulls };
}
