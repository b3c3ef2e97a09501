/**
 * Kept so that the modules importing the service's types from here (indexer, refunds, api/middleware/auth)
 * compile unchanged while other branches edit them; the service is assembled in index.ts.
 */
export { createOrdersService, type Caller, type NewOrderInput, type OrdersService } from './index.js';
