import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { X509Certificate, createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { insertTrustAnchor, listClientJournal, listTrustAnchors } from '@idv/db';
import { newId } from '@idv/domain';
import { selfSigned, signedBy } from '../helpers/certificates.ts';
import { apiFromPage, ARTIFACTS, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * The wallet trust anchors screen, in Chromium through the development provider's sign-in: an
 * administrator finds it empty, pastes an IACA root, reads an SD-JWT VC issuer's certificate from
 * a .pem file (it expires within 30 days: flagged), sees an anchor that has since expired flagged
 * too, is refused a private key in the service's own words, and removes an anchor after a
 * confirmation (journaled as the operator). French words; a supervisor neither sees the screen nor
 * gets the calls through. Each state is audited with axe and captured (phone and desktop).
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;

let h: ConsoleHarness;
let ada: Account;
let sam: Account;
const { audits, capture } = screenAudits();
const PATH = '/settings/trust-anchors';
const DAY_MS = 86_400_000;

const iaca = selfSigned('/C=FR/O=Agence Nationale des Titres Sécurisés/CN=Test IACA France');
const pidCa = selfSigned('/C=DE/O=Test PID Provider/CN=Test PID CA');
const soon = signedBy(pidCa, '/C=DE/O=Test PID Provider/CN=Test PID Issuer 2026', { days: 12 });

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startConsoleHarness({ realTime: true });
  ada = await h.operator('administrator', 'Ada Administrator');
  sam = await h.operator('supervisor', 'Sam Supervisor');
});
after(() => h?.close());

/** One phone for the administrator, signed in once, for every phone capture. */
let phonePage: Page | undefined;
async function adminPhone(): Promise<Page> {
  if (!phonePage) phonePage = await h.openAs(ada, PATH, { viewport: 'phone' });
  else await phonePage.goto(`${h.consoleUrl}${PATH}`);
  await phonePage.getByRole('heading', { level: 1, name: 'Wallet trust anchors' }).waitFor();
  return phonePage;
}

describe('wallet trust anchors in the console', () => {
  let page: Page;

  test('empty, then an IACA pasted and an issuer read from a file (expiring soon), an expired one flagged', async () => {
    page = await h.openAs(ada, PATH);
    await page.getByRole('heading', { level: 1, name: 'Wallet trust anchors' }).waitFor();
    await page.getByText('No trust anchor: no wallet credential can be accepted in this environment.').waitFor();
    assert.ok(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wallet trust anchors' }).isVisible());
    await capture(page, 'trust-anchors-empty', 'desktop');
    await capture(await adminPhone(), 'trust-anchors-empty', 'phone');

    // Pasted: the IACA root, with a label.
    await page.getByRole('radio', { name: /^IACA \(mdoc\)/ }).check();
    await page.getByLabel('Label (optional)').fill('France IACA');
    await page.getByLabel('Certificate (PEM)').fill(iaca.pem);
    await page.getByRole('button', { name: 'Add the anchor' }).click();
    await page.getByText('Trust anchor added: C=FR, O=Agence Nationale des Titres Sécurisés, CN=Test IACA France.').waitFor();
    await page.locator('tbody tr', { hasText: 'France IACA' }).waitFor();

    // From a file: the PID issuer's certificate, twelve days left.
    await page.getByRole('radio', { name: /^SD-JWT VC issuer/ }).check();
    await page.getByLabel('Or choose a .pem file').setInputFiles({ name: 'pid-issuer.pem', mimeType: 'application/x-pem-file', buffer: Buffer.from(soon.pem) });
    // The browser reads the file asynchronously: on a loaded machine the field fills a moment later.
    const pemField = page.getByLabel('Certificate (PEM)');
    for (let i = 0; i < 100 && (await pemField.inputValue()).trim() !== soon.pem.trim(); i++) await page.waitForTimeout(100);
    assert.equal((await pemField.inputValue()).trim(), soon.pem.trim(), 'the file is read into the field');
    await page.getByRole('button', { name: 'Add the anchor' }).click();
    const soonRow = page.locator('tbody tr', { hasText: 'Test PID Issuer 2026' });
    await soonRow.getByText('Expires soon').waitFor();
    await soonRow.getByText('Issued by C=DE, O=Test PID Provider, CN=Test PID CA').waitFor();
    assert.equal(await page.locator('tbody tr', { hasText: 'France IACA' }).getByText(/Expire/).count(), 0, 'a root valid for a year is not flagged');

    // An anchor added when it was valid, expired since (written as the API would have, a year ago).
    const old = selfSigned('/C=BE/O=Old Authority/CN=Old IACA Belgium', { notBefore: new Date(Date.now() - 800 * DAY_MS), notAfter: new Date(Date.now() - 3 * DAY_MS) });
    const x509 = new X509Certificate(old.pem);
    const then = new Date(Date.now() - 365 * DAY_MS);
    await insertTrustAnchor(h.t.database.db, {
      id: newId('tan', then.getTime()),
      ...h.tenant,
      kind: 'iaca',
      label: 'Belgium (old root)',
      certificatePem: x509.toString(),
      fingerprint: createHash('sha256').update(x509.raw).digest('hex'),
      subject: 'C=BE, O=Old Authority, CN=Old IACA Belgium',
      notBefore: new Date(x509.validFrom),
      notAfter: new Date(x509.validTo),
      createdBy: `op:${ada.op.id}`,
      createdAt: then,
    });
    await page.reload();
    await page.locator('tbody tr', { hasText: 'Belgium (old root)' }).getByText('Expired').waitFor();
    await capture(page, 'trust-anchors-list', 'desktop');
    const phone = await adminPhone();
    await phone.locator('tbody tr', { hasText: 'Test PID Issuer 2026' }).getByText('Expires soon').waitFor();
    await capture(phone, 'trust-anchors-list', 'phone');

    const stored = await listTrustAnchors(h.t.database.db, h.tenant);
    assert.deepEqual(
      stored.map((a) => [a.kind, a.label, a.createdBy]),
      [
        ['iaca', 'Belgium (old root)', `op:${ada.op.id}`],
        ['iaca', 'France IACA', `op:${ada.op.id}`],
        ['sd_jwt_issuer', null, `op:${ada.op.id}`],
      ],
    );
  });

  test('a private key is refused in the service\'s own words, and nothing is added', async () => {
    await page.getByRole('radio', { name: /^IACA \(mdoc\)/ }).check();
    await page.getByLabel('Certificate (PEM)').fill(iaca.keyPem);
    await page.getByRole('button', { name: 'Add the anchor' }).click();
    const direct = await h.t.request('POST', '/v1/trust-anchors', { signed: true, body: { kind: 'iaca', certificate_pem: iaca.keyPem } });
    assert.equal(direct.json().error.code, 'trust_anchor_certificate_invalid');
    await page.getByRole('alert').getByText(direct.json().error.message).waitFor();
    await capture(page, 'trust-anchors-upload-error', 'desktop');
    assert.equal((await listTrustAnchors(h.t.database.db, h.tenant)).length, 3);

    const phone = await adminPhone();
    await phone.getByLabel('Certificate (PEM)').fill(selfSigned('/CN=Not a CA', { ca: false }).pem);
    await phone.getByRole('button', { name: 'Add the anchor' }).click();
    await phone.getByRole('alert').getByText(/not a CA certificate/).waitFor();
    await capture(phone, 'trust-anchors-upload-error', 'phone');
  });

  test('removed after a confirmation, journaled as the operator', async () => {
    await page.getByRole('button', { name: 'Remove France IACA' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the trust anchor France IACA?' });
    await dialog.waitFor();
    await dialog.getByText(/will be refused from now on/).waitFor();
    await capture(page, 'trust-anchors-remove', 'desktop');
    const phone = await adminPhone();
    await phone.getByRole('button', { name: 'Remove Belgium (old root)' }).click();
    await phone.getByRole('dialog', { name: 'Remove the trust anchor Belgium (old root)?' }).waitFor();
    await capture(phone, 'trust-anchors-remove', 'phone');
    await phone.getByRole('button', { name: 'Cancel' }).click();

    await dialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Trust anchor France IACA removed.').waitFor();
    await page.locator('tbody tr', { hasText: 'France IACA' }).waitFor({ state: 'detached' });
    assert.equal((await listTrustAnchors(h.t.database.db, h.tenant)).length, 2, 'only the one confirmed is gone');
    const journal = (await listClientJournal(h.t.database.db, h.tenant)).filter((e) => e.action.startsWith('trust_anchor.'));
    assert.deepEqual(
      journal.map((e) => [e.action, e.actor]),
      [
        ['trust_anchor.added', `op:${ada.op.id}`],
        ['trust_anchor.added', `op:${ada.op.id}`],
        ['trust_anchor.removed', `op:${ada.op.id}`],
      ],
    );
  });

  test('in French', async () => {
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Ancres de confiance des portefeuilles' }).waitFor();
    await page.locator('tbody tr', { hasText: 'Test PID Issuer 2026' }).getByText('Expire bientôt').waitFor();
    await page.locator('tbody tr', { hasText: 'Belgium (old root)' }).getByText('Expiré').waitFor();
    await page.getByRole('button', { name: "Ajouter l'ancre" }).waitFor();
    await capture(page, 'trust-anchors-fr', 'desktop');
    await page.getByLabel('Langue').selectOption('en');
  });

  test('a supervisor neither sees the screen nor gets the calls through', async () => {
    const samPage = await h.openAs(sam, '/queue');
    const nav = samPage.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Queue' }).waitFor();
    assert.equal(await nav.getByRole('link', { name: 'Wallet trust anchors' }).count(), 0);
    await samPage.goto(`${h.consoleUrl}${PATH}`);
    await samPage.waitForURL((u) => u.pathname === '/queue');
    const anchorId = (await listTrustAnchors(h.t.database.db, h.tenant))[0].id;
    for (const [method, path, body] of [
      ['GET', '/v1/trust-anchors'],
      ['POST', '/v1/trust-anchors', { kind: 'iaca', certificate_pem: iaca.pem }],
      ['DELETE', `/v1/trust-anchors/${anchorId}`],
    ] as const) {
      const res = await apiFromPage(samPage, method, path, body);
      assert.equal(res.status, 403, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'operator_role_insufficient');
    }
  });

  test('axe: no serious or critical violation on any state captured', () => {
    assert.ok(Object.keys(audits).length >= 9, `audited: ${Object.keys(audits).join(', ')}`);
    assert.deepEqual(
      Object.entries(audits).filter(([, v]) => v.length > 0),
      [],
    );
  });
});
