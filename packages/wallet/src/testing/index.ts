/**
 * @idv/wallet/testing: a test issuer and a test wallet built on the same libraries as the
 * verifier, for the tests, the sandbox and the Playwright journey. Never trusted by default.
 */
export { createTestIssuer, saveTestIssuer, loadTestIssuer, type TestIssuer } from './issuer.ts';
export { TestWallet, type TestPerson, type TestCredentialOptions, type Tamper } from './wallet.ts';
export { createStatusList, createStatusListCwt } from './status-list.ts';
