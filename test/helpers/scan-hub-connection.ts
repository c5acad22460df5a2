/** An unstarted `@microsoft/signalr` connection to a gateway's /scanHub over WebSockets, as a front end opens it. */
import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';

export function scanHubConnection(baseUrl: string, token: string): HubConnection {
  return new HubConnectionBuilder()
    .withUrl(`${baseUrl}/scanHub`, { accessTokenFactory: () => token, transport: HttpTransportType.WebSockets })
    .configureLogging(LogLevel.Error)
    .build();
}
