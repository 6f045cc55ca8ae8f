/**
 * @idv/wallet/testing: a test issuer and a test wallet built on the same libraries as the
 * verifier, for the tests, the sandbox and the Playwright journey. Never trusted by default.
 */
export { createTestIssuer, type TestIssuer } from './issuer.ts';
export { TestWallet, type TestPerson, type TestCredentialOptions, type Tamper } from './wallet.ts';
export { createStatusList } from './status-list.ts';
