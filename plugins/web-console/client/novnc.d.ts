/** The part of noVNC's RFB class the console uses (noVNC ships no type declarations). */
declare module '@novnc/novnc' {
  export default class RFB extends EventTarget {
    constructor(target: HTMLElement, urlOrChannel: string | WebSocket, options?: { shared?: boolean });
    scaleViewport: boolean;
    resizeSession: boolean;
    viewOnly: boolean;
    focusOnClick: boolean;
    sendCtrlAltDel(): void;
    disconnect(): void;
    focus(): void;
  }
}
