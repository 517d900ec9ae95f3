export const REQUEST_ID_HEADER = "x-request-id";

// Letters, digits and . _ : - only: an ID that arrives from outside goes into log lines and
// response headers, so it may carry no spaces, quotes, line breaks or markup.
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's ID: the one it arrived with (from a load balancer, a proxy or the client) when
 * well-formed, so that one ID follows the request across every hop; otherwise a new UUID.
 */
export const requestId = (incoming: string | null): string =>
  incoming !== null && WELL_FORMED.test(incoming) ? incoming : crypto.randomUUID();
