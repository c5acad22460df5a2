/**
 * The device settings of a site (ports, allowed networks, TLS trust), read once at start from the
 * plugin's options, which hold what the site file's `amt` section held before kernel API 1.5.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DevicesConfig } from './config.js';
import type { AmtSiteSettings, DeviceSettings, DeviceTlsTrust } from './api.js';

/** A configuration the plugin cannot start with; recognised by the kernel by its shape, as its own ConfigError. */
function configError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ConfigError', code: 'GW_ERR_CONFIG' });
}

/**
 * The settings device I/O follows. The CA bundle of `caFile` (relative to the working directory) is
 * read here, once: an unreadable one stops start-up naming it.
 */
export function readDeviceSettings(config: DevicesConfig): DeviceSettings {
  const { ports, allowedNetworks, tlsTrust, caFile, legacyTls } = config;
  const legacy = legacyTls ? { legacyTls: true } : {};
  let caPem: string | undefined;
  if (caFile) {
    try {
      caPem = readFileSync(resolve(caFile), 'utf8');
    } catch (err) {
      throw configError(`invalid configuration: plugins.devices.options.caFile ${caFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
  }
  return Object.freeze({
    ports: Object.freeze({ ...ports }),
    allowedNetworks: Object.freeze([...allowedNetworks]),
    tlsTrust: Object.freeze({ mode: tlsTrust, ...(caPem ? { caPem } : {}), ...legacy }),
  });
}

/** The settings as `ctx.site.amt` and `ctx.site.deviceTls` gave them to plugins of kernel API 1.0-1.4. */
export function siteSettingsOf(config: DevicesConfig, settings: DeviceSettings): { amt: AmtSiteSettings; deviceTls: DeviceTlsTrust } {
  const amt: AmtSiteSettings = { ports: { ...config.ports }, allowedNetworks: [...config.allowedNetworks], tlsTrust: config.tlsTrust, caFile: config.caFile, legacyTls: config.legacyTls };
  return { amt: Object.freeze(amt), deviceTls: settings.tlsTrust };
}
