/**
 * @idv/wallet and its test kit, loaded on first use. With their libraries (X.509 and ASN.1, CBOR
 * and COSE, SD-JWT) they are a few hundred modules that every process starting the API would
 * otherwise load, though most never see a wallet: a worker, a service whose flows offer none, each
 * test file. The verification itself runs in its own thread (wallet-verify-task.ts).
 */
export const walletLibrary = () => import('@idv/wallet');
export const walletTestKit = () => import('@idv/wallet/testing');
