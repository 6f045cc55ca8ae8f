import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { helm } from './helpers/helm.ts';

/**
 * The Helm chart (deploy/helm/idv): `helm lint` and `helm template` clean, and every rendered
 * manifest valid against Kubernetes' schemas (the OpenAPI schemas of Kubernetes 1.27 that the
 * kubernetes-models package bundles, compiled validators: kubeconform is not reachable here).
 * They check types, required fields and enumerations; unlike `kubeconform -strict` they accept
 * unknown fields, so the deployments' security and probes are asserted one by one below.
 */

const CHART = 'deploy/helm/idv';

type Manifest = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: any };

async function render(sets: string[] = []): Promise<Manifest[]> {
  const text = await helm(['template', 'idv', CHART, ...sets.flatMap((s) => ['--set', s])]);
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** The kubernetes-models class of a manifest's apiVersion and kind. */
async function modelOf(m: Manifest): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = m.apiVersion.includes('/') ? m.apiVersion.split('/') : [null, m.apiVersion];
  const path = group ? `kubernetes-models/${group}/${version}/${m.kind}` : `kubernetes-models/${version}/${m.kind}`;
  const mod = (await import(path)) as Record<string, new (data: unknown) => { validate(): void }>;
  return mod[m.kind];
}

async function validateAll(manifests: Manifest[]): Promise<void> {
  for (const m of manifests) {
    const Model = await modelOf(m);
    assert.ok(Model, `no schema for ${m.apiVersion} ${m.kind}`);
    assert.doesNotThrow(() => new Model(m).validate(), `${m.kind} ${m.metadata.name}`);
  }
}

const podSpecs = (ms: Manifest[]) => ms.filter((m) => m.kind === 'Deployment' || m.kind === 'Job').map((m) => ({ name: m.metadata.name, spec: m.spec.template.spec }));

describe('the Helm chart', () => {
  test('helm lint --strict passes', async () => {
    const out = await helm(['lint', '--strict', CHART]);
    assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  test('the default values render valid manifests: api, worker (with its autoscaler), console, migrations Job', async () => {
    const ms = await render();
    await validateAll(ms);
    const kinds = ms.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    for (const k of ['Deployment/idv-api', 'Deployment/idv-worker', 'Deployment/idv-console', 'HorizontalPodAutoscaler/idv-worker', 'Job/idv-migrate', 'Service/idv-api', 'Service/idv-console']) {
      assert.ok(kinds.includes(k), `${k} in ${kinds.join(', ')}`);
    }
    const job = ms.find((m) => m.kind === 'Job')!;
    assert.match(job.metadata.annotations!['helm.sh/hook'], /pre-install/);
    assert.equal(ms.find((m) => m.metadata.name === 'idv-worker' && m.kind === 'Deployment')!.spec.replicas, undefined, 'the autoscaler owns the replicas');
  });

  test('every pod runs as non-root on a read-only root file system, with /tmp and /data its only writable paths', async () => {
    for (const { name, spec } of podSpecs(await render())) {
      assert.equal(spec.securityContext.runAsNonRoot, true, name);
      assert.equal(spec.automountServiceAccountToken, false, name);
      for (const c of spec.containers) {
        assert.equal(c.securityContext.readOnlyRootFilesystem, true, name);
        assert.equal(c.securityContext.allowPrivilegeEscalation, false, name);
        assert.deepEqual(c.securityContext.capabilities.drop, ['ALL'], name);
        assert.deepEqual(c.volumeMounts.map((v: { mountPath: string }) => v.mountPath).sort(), ['/data', '/tmp'], name);
      }
    }
  });

  test('the probes: /livez for liveness, /readyz for the API\'s readiness; workers on their metrics port', async () => {
    const specs = new Map(podSpecs(await render()).map((p) => [p.name, p.spec.containers[0]]));
    const api = specs.get('idv-api');
    assert.equal(api.livenessProbe.httpGet.path, '/livez');
    assert.equal(api.readinessProbe.httpGet.path, '/readyz');
    assert.equal(specs.get('idv-worker').livenessProbe.httpGet.path, '/livez');
    assert.equal(specs.get('idv-worker').livenessProbe.httpGet.port, 'metrics');
    assert.equal(specs.get('idv-console').livenessProbe.httpGet.path, '/livez');
  });

  test('secrets only by reference: no secret value in the manifests, every one a secretKeyRef', async () => {
    const ms = await render(['secrets.name=idv-prod']);
    for (const { name, spec } of podSpecs(ms)) {
      for (const env of spec.containers[0].env as { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string } } }[]) {
        if (['DATABASE_URL', 'MASTER_KEY', 'MASTER_KEYS_PREVIOUS', 'REDIS_URL', 'CONSOLE_API_KEY', 'OIDC_CLIENT_SECRET'].includes(env.name)) {
          assert.equal(env.value, undefined, `${name} ${env.name}`);
          assert.equal(env.valueFrom?.secretKeyRef.name, 'idv-prod', `${name} ${env.name}`);
        }
      }
    }
    assert.equal(ms.filter((m) => m.kind === 'Secret').length, 0, 'the chart writes no Secret');
    await assert.rejects(render(['secrets.name=']), /secrets\.name/);
  });

  test('the other shapes render valid manifests too: ingress on, autoscaling off, console off, no migrations Job', async () => {
    const ms = await render(['ingress.enabled=true', 'ingress.tlsSecretName=idv-tls', 'worker.autoscaling.enabled=false', 'worker.replicas=3']);
    await validateAll(ms);
    const ingress = ms.find((m) => m.kind === 'Ingress')!;
    assert.deepEqual(ingress.spec.rules.map((r: { host: string }) => r.host).sort(), ['api.example.com', 'console.example.com', 'docs.example.com', 'verify.example.com']);
    assert.equal(ms.find((m) => m.kind === 'Deployment' && m.metadata.name === 'idv-worker')!.spec.replicas, 3);
    assert.equal(ms.filter((m) => m.kind === 'HorizontalPodAutoscaler').length, 0);
    const lean = await render(['console.enabled=false', 'migrations.enabled=false']);
    await validateAll(lean);
    assert.equal(lean.filter((m) => m.metadata.name.endsWith('console') || m.kind === 'Job').length, 0);
  });
});
