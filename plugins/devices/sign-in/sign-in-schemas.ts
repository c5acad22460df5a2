const NULLABLE_TIME = { type: ['string', 'null'], format: 'date-time' };

export const SIGN_IN_SCHEMA = {
  type: 'object',
  required: ['deviceId', 'ipAddress', 'authStatus', 'consecutiveFailures', 'budget', 'remaining', 'refused', 'untried', 'paused'],
  properties: {
    deviceId: { type: 'string' },
    ipAddress: { type: 'string' },
    authStatus: { type: 'string' },
    consecutiveFailures: { type: 'integer', description: 'Failed logins in a row the gateway caused since the last success, lockout page or reset' },
    budget: { type: 'integer', description: 'Failed logins in a row allowed: `signIn.lockoutThreshold` minus `signIn.safetyMargin`' },
    remaining: { type: 'integer', description: 'What is left of the budget, less what operations under way have reserved' },
    lastFailureAt: NULLABLE_TIME,
    lastSuccessAt: NULLABLE_TIME,
    lockedOutAt: { ...NULLABLE_TIME, description: 'When the device last answered with its lockout page' },
    workingCredentialId: { type: ['string', 'null'] },
    refused: {
      type: 'array',
      description: 'Credentials the device refused in their current version; not tried there again until changed or reset',
      items: { type: 'object', properties: { credentialId: { type: 'string' }, name: { type: ['string', 'null'] }, at: { type: 'string', format: 'date-time' } } },
    },
    untried: { type: 'array', items: { type: 'string' }, description: 'Stored credentials not yet refused by the device (the next ones tried)' },
    paused: {
      type: ['object', 'null'],
      description: 'Set while sign-ins to the device are paused',
      properties: { reason: { enum: ['locked-out', 'budget-spent'] }, detail: { type: 'string' }, until: { type: 'string', format: 'date-time' } },
    },
  },
};
