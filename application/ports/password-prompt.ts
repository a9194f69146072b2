/**
 * Asks the person at the controlling terminal for a password with echo off. Never reads argv,
 * the environment or standard input; without a terminal it fails with MISSING_FIELD.
 */
export interface PasswordPrompt {
  ask(question: string): Promise<string>;
}
