import type { AmtSiteSettings } from '../plugin-api.js';
import type { LogLevel } from '../log/logger.js';

/** A plugin's entry in the site configuration. */
export interface PluginSetting {
  enable: boolean;
  path?: string;
  package?: string;
  options?: Record<string, unknown>;
}

/** The validated site configuration (see schemas/config.schema.json and the README). */
export interface GatewayConfig {
  server: {
    host: string;
    port: number;
    bodyLimitBytes: number;
    shutdownTimeoutMs: number;
    tls: { cert?: string | null; key?: string | null };
  };
  dataDir: string;
  masterKeyFile?: string | null;
  log: { level: LogLevel };
  cors: { origins: string[]; maxAgeSeconds?: number };
  auth: {
    tokenTtlSeconds: number;
    adminPasswordFile?: string | null;
    login: {
      freeFailures: number;
      maxFailures: number;
      windowSeconds: number;
      delayStepMs: number;
      addressMaxFailures?: number;
      maxConcurrentPerName?: number;
      maxConcurrentPerAddress?: number;
    };
  };
  amt: AmtSiteSettings;
  workers: { threads: number; concurrentTasksPerWorker: number; maxQueue: number; idleTimeoutMs: number };
  plugins: Record<string, PluginSetting>;
}
