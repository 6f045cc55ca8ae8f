import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { findActiveFlow } from '@idv/db';
import { STANDARD_FLOW } from '@idv/domain';
import { realisticReports, seedDecidedCases } from '../helpers/flows.ts';
import { apiFromPage, ARTIFACTS, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * The Flows screen in Debian's Chromium, signed in through the development provider:
 * an administrator edits the standard flow (a face threshold and double validation, in the form,
 * the JSON following), dry-runs it on past decided cases, saves it as a new version, activates it,
 * and a case opened afterwards through the API uses that version; an administrator creates a flow
 * from a copy and from templates, the service's rules refusing at the field before anything is
 * sent, dry-runs it on another flow's cases, saves the draft and activates it; a supervisor reads and dry-runs
 * but is offered neither save nor activation, and the service refuses them to a direct call; a
 * reviewer has no Flows screen. Every screen is audited with axe and captured (phone and desktop).
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;
let h: ConsoleHarness;
let ada: Account;
let sam: Account;
let rita: Account;
const { audits, capture } = screenAudits();
const openAs = (who: { login: string; password: string }, path: string, viewport: 'phone' | 'desktop' = 'desktop', locale?: string) => h.openAs(who, path, { viewport, locale });

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startConsoleHarness();
  ada = await h.operator('administrator', 'Ada Admin');
  sam = await h.operator('supervisor', 'Sam Supervisor');
  rita = await h.operator('reviewer', 'Rita Reviewer');
  // Past decided cases of the standard flow, as the checks left them: the dry run's material.
  const flow = (await findActiveFlow(h.t.database.db, h.tenant, 'standard'))!;
  await seedDecidedCases(h.t.database.db, h.tenant, flow, Array.from({ length: 60 }, (_, i) => realisticReports(STANDARD_FLOW, i)), h.t.clock.now());
});

after(async () => {
  await h?.close();
});

describe('console: flows', () => {
  test('an administrator edits a flow, dry-runs it, saves and activates it; a new case uses the new version', async () => {
    const page = await openAs(ada, '/flows');
    await page.getByRole('link', { name: 'standard' }).waitFor();
    await capture(page, 'flows-list', 'desktop');
    await page.getByRole('link', { name: 'standard' }).click();
    await page.getByRole('heading', { name: 'Flow standard' }).waitFor();

    // The form writes the JSON…
    await page.getByLabel('Match up to distance').fill('1.1');
    await page.getByLabel('Double validation (two operators must agree)').check();
    const json = page.getByLabel('Definition (JSON)');
    assert.match(await json.inputValue(), /"face_match_max_distance": 1\.1/);
    assert.match(await json.inputValue(), /"double_validation": true/);
    // The stills path: off in the standard flow, its consequence said under it; the box writes the setting.
    const stills = page.getByRole('checkbox', { name: 'Also accept one photo per movement (for a capture client that cannot film)' });
    assert.equal(await stills.isChecked(), false);
    assert.match((await page.locator('#flows-stills-help').textContent())!, /one photo per movement is refused/);
    assert.equal(await stills.getAttribute('aria-describedby'), 'flows-stills-help');
    await stills.check();
    assert.match(await json.inputValue(), /"allow_stills": true/);
    await stills.scrollIntoViewIfNeeded();
    await capture(page, 'flow-stills', 'desktop');
    await stills.uncheck();
    assert.match(await json.inputValue(), /"allow_stills": false/);
    // …and JSON typed beside it redraws the form.
    await json.fill((await json.inputValue()).replace('"min_age": 18', '"min_age": 21'));
    assert.equal(await page.getByLabel('Minimum age').inputValue(), '21');
    await json.fill((await json.inputValue()).replace('"min_age": 21', '"min_age": 18'));

    await page.getByRole('button', { name: 'Dry run' }).click();
    const summary = page.getByText(/of 60 decided cases would end differently/);
    await summary.waitFor();
    const changed = Number((await summary.textContent())!.match(/^(\d+) of/)![1]);
    assert.ok(changed > 0, 'uncertain faces under 1.1 would now be approved');
    await page.getByText(/: Review → Approved\./).waitFor();
    await capture(page, 'flow-dry-run', 'desktop');

    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.waitForURL(/\/flows\/standard\?version=2$/);
    await page.getByRole('heading', { name: /Version 2\s+Draft/ }).waitFor();
    await page.getByRole('heading', { name: 'Compare versions' }).waitFor();
    await page.locator('.diff-add', { hasText: '"face_match_max_distance": 1.1' }).waitFor();

    await page.getByRole('button', { name: 'Activate version 2' }).click();
    const dialog = page.getByRole('dialog', { name: /Activate version 2 of standard\?/ });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Version 2 is active: new cases use it.').waitFor();
    await page.getByRole('heading', { name: /Version 2\s+Active/ }).waitFor();
    await capture(page, 'flow-edit', 'desktop');

    const created = await h.t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().flow_version, 2);
    const active = (await findActiveFlow(h.t.database.db, h.tenant, 'standard'))!;
    assert.deepEqual([active.version, active.definition.checks.face_match_max_distance, active.definition.double_validation], [2, 1.1, true]);

    const phone = await openAs(ada, '/flows/standard?version=2', 'phone');
    await phone.getByRole('heading', { name: /Version 2\s+Active/ }).waitFor();
    await capture(phone, 'flow-edit', 'phone');
    assert.equal(active.definition.liveness.allow_stills, false, 'saved as the form left it');
    await phone.getByRole('checkbox', { name: /Also accept one photo per movement/ }).check();
    await capture(phone, 'flow-stills', 'phone');
  });

  test('an administrator creates a flow from a template (or a copy), the service\'s rules shown at the field, dry-runs, saves the draft and activates it', async () => {
    const page = await openAs(ada, '/flows');
    await page.getByRole('link', { name: 'New flow' }).click();
    await page.getByRole('heading', { level: 1, name: 'New flow' }).waitFor();
    const name = page.getByLabel('Name', { exact: true });
    const start = page.getByLabel('Start from');
    const save = page.getByRole('button', { name: 'Save as draft (version 1)' });
    const json = page.getByLabel('Definition (JSON)');

    // A name the service would refuse, or one taken, is said at once.
    await name.fill('Remote');
    await page.getByText('This name is not accepted').waitFor();
    await name.fill('standard');
    await page.getByText('A flow of this name exists').waitFor();
    assert.ok(await save.isDisabled());
    await name.fill('remote');

    // A copy of another flow starts from its active version (version 2 since the test above).
    await start.selectOption({ label: 'Copy of standard' });
    await page.waitForFunction(() => (document.querySelector('textarea.flow-json') as HTMLTextAreaElement).value.includes('"face_match_max_distance": 1.1'));
    // A template: everything it says is in the form and the JSON.
    await start.selectOption({ label: 'Enhanced due diligence' });
    await page.getByText('two operators who must agree').waitFor();
    assert.ok(await page.getByLabel('Double validation (two operators must agree)').isChecked());
    assert.ok(await page.getByLabel('Look down').isChecked());
    await start.selectOption({ label: 'Document and selfie' });
    assert.equal(await page.getByLabel('Double validation (two operators must agree)').isChecked(), false);
    assert.match(await json.inputValue(), /"steps": \[\s*"consent",\s*"document",\s*"face"\s*\]/);

    // The service's own rules, run here: a match threshold above the review one is refused at its field, nothing can be sent.
    const match = page.getByLabel('Match up to distance');
    await match.fill('1.5');
    const problem = page.locator('#problem-checks-face_match_max_distance');
    await problem.getByText('face_match_max_distance must not exceed face_review_max_distance').waitFor();
    assert.equal(await match.getAttribute('aria-invalid'), 'true');
    assert.equal(await match.getAttribute('aria-describedby'), 'problem-checks-face_match_max_distance');
    await page.getByRole('alert').filter({ hasText: 'The service would refuse this definition (1 problem(s))' }).waitFor();
    assert.ok(await save.isDisabled());
    assert.ok(await page.getByRole('button', { name: 'Dry run' }).isDisabled());
    // A schema error typed in the JSON is placed too (the form shows it at the field it concerns).
    await json.fill((await json.inputValue()).replace('"min_age": 18', '"min_age": 150'));
    await page.locator('#problem-checks-min_age').waitFor();
    await capture(page, 'flow-new-problems', 'desktop');
    await json.fill((await json.inputValue()).replace('"min_age": 150', '"min_age": 18'));
    await match.fill('1.068');
    await page.locator('.flow-problems').waitFor({ state: 'detached' });

    // A dry run on the past cases of an existing flow, then the draft saved.
    assert.equal(await page.getByLabel('Dry run on the past cases of').inputValue(), 'standard');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.getByText(/of 60 decided cases would end differently/).waitFor();
    await capture(page, 'flow-new', 'desktop');
    await save.click();
    await page.waitForURL(/\/flows\/remote\?version=1$/);
    await page.getByRole('heading', { name: /Version 1\s+Draft/ }).waitFor();
    const created = (await h.t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'remote', country: 'FR' } }));
    assert.equal(created.statusCode, 422, 'a draft takes no case');

    await page.getByRole('button', { name: 'Activate version 1' }).click();
    const dialog = page.getByRole('dialog', { name: /Activate version 1 of remote\?/ });
    await dialog.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Version 1 is active: new cases use it.').waitFor();
    const opened = await h.t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'remote', country: 'FR' } });
    assert.equal(opened.statusCode, 201, opened.body);
    assert.deepEqual([opened.json().flow_version, (await findActiveFlow(h.t.database.db, h.tenant, 'remote'))!.definition.steps], [1, ['consent', 'document', 'face']]);

    // On a phone, in French.
    const phone = await openAs(ada, '/flows/new', 'phone', 'fr-FR');
    await phone.getByRole('heading', { level: 1, name: 'Nouveau parcours' }).waitFor();
    await phone.getByLabel('Partir de').selectOption({ label: 'Vigilance renforcée' });
    await phone.getByText('deux opérateurs qui doivent concorder').waitFor();
    await capture(phone, 'flow-new-fr', 'phone');
    const list = await openAs(ada, '/flows', 'phone');
    await list.getByRole('link', { name: 'remote' }).waitFor();
    await capture(list, 'flows-list', 'phone');
  });

  test('an administrator sets what a suspected presentation attack does, in plain words; the default is said under each and leaves the definition', async () => {
    const page = await openAs(ada, '/flows/standard');
    await page.getByRole('heading', { name: 'Flow standard' }).waitFor();
    const group = page.getByRole('group', { name: 'Suspected presentation attacks' });
    await group.scrollIntoViewIfNeeded();
    const expired = group.getByLabel('The capture does not answer the challenge issued for it in time (stale, reused or another challenge).');
    assert.equal(await expired.inputValue(), 'retake');
    assert.deepEqual(await expired.locator('option').allTextContents(), ['Reject', 'Ask for a new selfie', 'Send to review']);
    assert.equal(await expired.getAttribute('aria-describedby').then((id) => page.locator(`#${id}`).textContent()), 'Default: Ask for a new selfie');
    const photocopy = group.getByLabel('The document looks like a photocopy or a print, not the original.');
    assert.deepEqual(await photocopy.locator('option').allTextContents(), ['Reject', 'Ask for a new document photo', 'Send to review']);
    const json = page.getByLabel('Definition (JSON)');
    assert.doesNotMatch(await json.inputValue(), /presentation_attacks/);
    await expired.selectOption('reject');
    await photocopy.selectOption('retake');
    assert.match(await json.inputValue(), /"presentation_attacks": \{\s+"challenge_expired": "reject",\s+"document_photocopy_suspected": "retake"\s+\}/);
    // Back to its default: the reason leaves the definition.
    await photocopy.selectOption('review');
    assert.doesNotMatch(await json.inputValue(), /document_photocopy_suspected/);
    await capture(page, 'flow-attacks', 'desktop');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.waitForURL(/\/flows\/standard\?version=\d+$/);
    const version = Number(new URL(page.url()).searchParams.get('version'));
    const saved = (await h.t.request('GET', '/v1/flows/standard')).json().versions.find((v: { version: number }) => v.version === version);
    assert.deepEqual(saved.definition.decision.presentation_attacks, { challenge_expired: 'reject' });

    const phone = await openAs(ada, '/flows/standard', 'phone', 'fr-FR');
    const groupFr = phone.getByRole('group', { name: 'Attaques de présentation suspectées' });
    await groupFr.waitFor();
    await groupFr.scrollIntoViewIfNeeded();
    const cam = groupFr.getByLabel('Ce que le navigateur a indiqué de la caméra désigne une caméra virtuelle ou injectée.', { exact: false });
    assert.equal(await cam.count(), 0, 'the labels are the catalogue words, not the review sentences');
    const camera = groupFr.locator('select[name="attack_camera_injection_suspected"]');
    assert.deepEqual(await camera.locator('option').allTextContents(), ['Refuser', 'Redemander le selfie', 'Envoyer en revue']);
    assert.equal(await groupFr.locator('#attack-default-camera_injection_suspected').textContent(), 'Par défaut : Envoyer en revue');
    await capture(phone, 'flow-attacks-fr', 'phone');
  });

  test('a supervisor reads and dry-runs, but is offered neither save nor activation, and the service refuses both', async () => {
    const page = await openAs(sam, '/flows/standard?version=1', 'phone');
    await page.getByRole('heading', { name: /Version 1\s+Retired/ }).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flows', exact: true }).count(), 1, 'Flows is in the navigation');
    await page.getByLabel('When a check needs attention').selectOption('reject');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.getByText(/decided cases would end differently/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save as a new version' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /Activate/ }).count(), 0);
    await capture(page, 'flow-supervisor', 'phone');
    // No new flow either: no link, and the screen's address sends them back to the list.
    await page.goto(`${h.consoleUrl}/flows`);
    await page.getByRole('link', { name: 'standard' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'New flow' }).count(), 0);
    await page.goto(`${h.consoleUrl}/flows/new`);
    await page.waitForURL(`${h.consoleUrl}/flows`);
    const create = await apiFromPage(page, 'POST', '/v1/flows/other/versions', { definition: STANDARD_FLOW });
    assert.deepEqual([create.status, create.body.error.code], [403, 'operator_role_insufficient']);

    const save = await apiFromPage(page, 'POST', '/v1/flows/standard/versions', { definition: STANDARD_FLOW });
    assert.deepEqual([save.status, save.body.error.code], [403, 'operator_role_insufficient']);
    const activate = await apiFromPage(page, 'POST', '/v1/flows/standard/versions/1/activate');
    assert.deepEqual([activate.status, activate.body.error.code], [403, 'operator_role_insufficient']);
    assert.equal((await findActiveFlow(h.t.database.db, h.tenant, 'standard'))!.version, 2);
  });

  test('a reviewer has no Flows screen: not in the navigation, refused by the service', async () => {
    const page = await openAs(rita, '/queue');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flows', exact: true }).count(), 0);
    const list = await apiFromPage(page, 'GET', '/v1/flows');
    assert.deepEqual([list.status, list.body.error.code], [403, 'operator_role_insufficient']);
    // Reached by its address all the same, the screen sends the reviewer home (RoleGate).
    await page.goto(`${h.consoleUrl}/flows`);
    await page.waitForURL(`${h.consoleUrl}/queue`);
    await page.goto(`${h.consoleUrl}/flows/new`);
    await page.waitForURL(`${h.consoleUrl}/queue`);
  });

  test('every flows screen passes the axe audit (serious and critical, WCAG 2.1 A and AA)', () => {
    assert.ok(Object.keys(audits).length >= 5);
    const failures = Object.entries(audits).filter(([, v]) => v.length > 0);
    assert.deepEqual(failures, []);
  });
});
