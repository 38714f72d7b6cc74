/**
 * Who is calling: the API key's user and mode. Every query is scoped by it.
 * The API-key guard sets it on the request; services and repositories take
 * it as a plain value, so they never see the request.
 */
export interface Principal {
  userId: number;
  apiKeyId: number;
  testMode: boolean;
}
