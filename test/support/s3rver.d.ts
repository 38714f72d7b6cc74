// s3rver ships no types; only what the test server uses.
declare module '@20minutes/s3rver' {
  export default class S3rver {
    constructor(options: Record<string, unknown>);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
declare module '@20minutes/s3rver/lib/signature/v4.js' {
  interface ParsedHeader {
    accessKeyId: string;
    credential: { date: string; region: string; service: string };
    signedHeaders: string[];
    signatureProvided: string;
  }
  const v4: {
    parseHeader(headers: Record<string, string>): ParsedHeader;
    parseQuery(query: Record<string, string>): ParsedHeader & { time: string };
    getStringToSign(
      canonicalRequest: Record<string, unknown>,
      request: ParsedHeader,
    ): string;
    getSigningKey(
      secret: string,
      date: string,
      region: string,
      service: string,
    ): Buffer;
  };
  export default v4;
}
declare module '@20minutes/s3rver/lib/models/account.js' {
  const AWSAccount: { DUMMY_ACCOUNT: unknown };
  export default AWSAccount;
}
