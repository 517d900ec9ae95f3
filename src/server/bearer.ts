/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export const bearerToken = (authorization: string | null | undefined): string | undefined =>
  authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
