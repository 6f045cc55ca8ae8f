import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '@idv/config';
import { configProblems } from '../helpers/config-problems.ts';
import { DEFAULT_WEBHOOK_SETTINGS, RETRY_DELAYS_MS } from '@idv/webhooks';

const problems = configProblems;

describe('webhook configuration', () => {
  test("defaults are the interface's values and the dispatcher runs in the service", () => {
    const config = loadConfig({});
    assert.deepEqual(config.webhooks, DEFAULT_WEBHOOK_SETTINGS);
    assert.deepEqual(config.webhooks.retryDelaysMs, RETRY_DELAYS_MS);
    assert.equal(config.webhooks.timeoutMs, 5000);
    assert.equal(config.runWorker, true);
  });

  test('a shrunk schedule and the tuning values are read from the environment', () => {
    const config = loadConfig({
      WEBHOOK_RETRY_DELAYS_MS: '1, 2,3,4,5,6,7',
      WEBHOOK_TIMEOUT_MS: '250',
      WEBHOOK_POLL_MS: '20',
      WEBHOOK_CONCURRENCY: '4',
      WEBHOOK_LEASE_MS: '1000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RUN_WORKER: 'false',
    });
    assert.deepEqual(config.webhooks.retryDelaysMs, [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(
      [config.webhooks.timeoutMs, config.webhooks.pollMs, config.webhooks.concurrency, config.webhooks.leaseMs, config.webhooks.allowPrivateNetworks, config.runWorker],
      [250, 20, 4, 1000, true, false],
    );
  });

  test('refuses a schedule of another length, bad values, and a lease shorter than two timeouts', () => {
    assert.match(problems({ WEBHOOK_RETRY_DELAYS_MS: '10,20,30' }).join(), /WEBHOOK_RETRY_DELAYS_MS must list 7 delays/);
    assert.match(problems({ WEBHOOK_RETRY_DELAYS_MS: '1,2,3,4,5,6,x' }).join(), /WEBHOOK_RETRY_DELAYS_MS/);
    assert.match(problems({ WEBHOOK_TIMEOUT_MS: '0' }).join(), /WEBHOOK_TIMEOUT_MS/);
    assert.match(problems({ WEBHOOK_CONCURRENCY: '1000' }).join(), /WEBHOOK_CONCURRENCY/);
    assert.match(problems({ RUN_WORKER: 'maybe' }).join(), /RUN_WORKER must be true or false/);
    assert.match(problems({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '9000' }).join(), /WEBHOOK_LEASE_MS must be at least twice/);
  });
});
