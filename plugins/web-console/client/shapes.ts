/**
 * The API's shapes as the console reads them: the types derived from the gateway's own TypeBox
 * schemas (the ones the routes are documented and tested with), imported, never re-declared here.
 * Type-only: nothing of the server reaches the bundle.
 */
export type { AuthenticatedUser, LoginResponse, User } from '../../../core/auth/user-schemas.js';
export type { ActivationApproval, ActivationProfile, ActivationProgressEvent, ActivationRecord, ProvisioningDomain } from '../../activation/schemas.js';
export type { Problem, ProblemFieldError } from '../../../core/http/problem-schema.js';
export type { AuditRecord } from '../../audit/audit-schemas.js';
export type { CiraConnection, TunnelIdentity } from '../../cira/routes/cira-schemas.js';
export type { Credential } from '../../devices/credentials/credential-schemas.js';
export type { Device, DeviceStatusChangedEvent, ProvisioningState } from '../../devices/registry/device-schemas.js';
export type { ImageView as Image } from '../../images/schemas.js';
export type { BulkPowerResult, PowerChangeResult, PowerStatus } from '../../power-mgmt/power-schemas.js';
export type { IderSession, IderSessionProgressEvent, RedirectionState, SessionInfo, SessionTicket } from '../../redirection/schemas.js';
export type { HardwareReport, MonitorEvent, MonitorSchedule, MonitorSummary } from '../../remote-monitor/monitor-schemas.js';
export type { CredentialTestResult, WsmanTestResult } from '../../rest-api/diagnostics/diagnostic-schemas.js';
export type { Scan, ScanProgressEvent, StartScanRequest } from '../../rest-api/scans/scan-schemas.js';
export type { FrontendRouteView as FrontendRoute } from '../../route-permissions/route-schemas.js';
export type { HubEvents } from '../../scan-hub/hub-event-shapes.js';
