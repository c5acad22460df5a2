export const FRONTEND_ROUTE_SCHEMA = {
  type: 'object',
  required: ['path', 'name', 'meta'],
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1 },
    name: { type: 'string', minLength: 1 },
    meta: {
      type: 'object',
      required: ['title', 'permission'],
      additionalProperties: false,
      properties: {
        title: { type: 'string' },
        icon: { type: 'string' },
        permission: { type: ['string', 'null'], description: 'Needed to see the route; null: every signed-in user' },
        order: { type: 'number' },
      },
    },
    children: { type: 'array', items: { $ref: '#/components/schemas/FrontendRoute' } },
  },
};

export const ROUTE_PERMISSIONS_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    home: {
      type: 'object',
      default: { path: '/', name: 'home', meta: { title: 'Home', icon: 'home', permission: null, order: 0 } },
      required: ['path', 'name', 'meta'],
      properties: { path: { const: '/' }, name: { type: 'string' }, meta: { type: 'object', required: ['title'] } },
    },
    routes: {
      type: 'array',
      default: [],
      description: 'Site routes added to those of the enabled plugins',
      items: {
        type: 'object',
        required: ['path', 'name', 'meta'],
        properties: { path: { type: 'string' }, name: { type: 'string' }, meta: { type: 'object', required: ['title', 'permission'] }, children: { type: 'array' } },
      },
    },
  },
};
