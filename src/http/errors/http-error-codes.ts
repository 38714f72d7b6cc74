/**
 * The codes of the HTTP layer's own refusals (authentication, transport,
 * query and document parsing, idempotency), in one place. Codes of refusals
 * by status alone are `GENERIC_CODES` (common/app-error.ts); the modules'
 * are in their `*.errors.ts`.
 */
export const HttpErrorCodes = {
  authenticationRequired: 'authentication_required',
  authorizationMalformed: 'authorization_malformed',
  linkExpired: 'link_expired',
  linkInvalid: 'link_invalid',
  originNullRefused: 'origin_null_refused',
  /** A portal form posted from another site (CSRF). */
  crossSiteFormRefused: 'cross_site_form_refused',
  httpsRequired: 'https_required',
  /** A body or query that cannot be read as text or JSON. */
  malformedRequest: 'malformed_request',
  unknownParameter: 'unknown_parameter',
  repeatedParameter: 'repeated_parameter',
  invalidParameter: 'invalid_parameter',
  /** A JSON:API write document of the wrong shape. */
  invalidDocument: 'invalid_document',
  unknownRelationship: 'unknown_relationship',
  relationshipRequired: 'relationship_required',
  idMismatch: 'id_mismatch',
  invalidAttribute: 'invalid_attribute',
  idempotencyKeyInvalid: 'idempotency_key_invalid',
  idempotencyKeyReused: 'idempotency_key_reused',
  idempotencyKeyInProgress: 'idempotency_key_in_progress',
  notReady: 'not_ready',
} as const;
