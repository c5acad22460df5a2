/** The permission the redirection plugin owns: features, consent and sessions. */
export const PERMISSION = 'remote:connect';
