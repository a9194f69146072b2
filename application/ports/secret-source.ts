/** Fresh secrets: 32 random bytes, base64url (spec 5.2). */
export interface SecretSource {
  secret(): string;
}
