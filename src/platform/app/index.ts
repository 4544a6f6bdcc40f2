/** The public face of src/platform/app: what the rest of src/ may import from it. */
export type { Metrics } from './metrics.js';
export type { RoutePlugin, RoutePluginOptions } from './route-plugin.js';
export { assembleServices } from './services.js';
export type { AppServices, GraphOwnershipPort, NodeOperations, RepublishRequest } from './services.js';
