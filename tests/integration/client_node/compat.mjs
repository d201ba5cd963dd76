// The official JavaScript client, @kubernetes/client-node, used as its documentation shows against
// `tenure serve` (the kubeconfig in $KUBECONFIG): CRUD with a 409 on a stale resourceVersion,
// merge and JSON patches, a Watch resumed from a resourceVersion, an informer with its handlers
// that relists after the server restarted, and LeaseCandidates. test_client_node.py runs it and
// restarts the server when asked: this script prints "RESTART" and waits for a line on stdin.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import readline from 'node:readline';

const NS = 'client-node';
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
const candidates = kc.makeApiClient(k8s.CoordinationV1beta1Api);
const stdin = readline.createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

let failures = 0;
async function check(name, body) {
  try {
    await body();
    console.log(`ok - ${name}`);
  } catch (err) {
    failures++;
    console.log(`not ok - ${name}\n  ${(err && err.stack) || err}`);
    if (err && err.body) console.log(`  body: ${typeof err.body === 'string' ? err.body : JSON.stringify(err.body)}`);
  }
}

// Resolves once `predicate` holds, checked at each event; rejects after `ms`.
function until(predicate, what, ms = 10000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    const poll = () => {
      if (predicate()) {
        clearTimeout(timer);
        resolve();
        return true;
      }
      return false;
    };
    if (!poll()) waiters.push(poll);
  });
}
let waiters = [];
function changed() {
  waiters = waiters.filter((poll) => !poll());
}

async function expectStatus(code, call) {
  try {
    await call();
  } catch (err) {
    assert.equal(err.code, code, `expected HTTP ${code}, got ${err.code}: ${err.body}`);
    return typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
  }
  assert.fail(`expected HTTP ${code}, the call succeeded`);
}

const configMap = (name, data) => ({ metadata: { name }, data });

await check('namespace', async () => {
  await core.createNamespace({ body: { metadata: { name: NS } } });
});

await check('CRUD with a 409 on a stale resourceVersion', async () => {
  const created = await core.createNamespacedConfigMap({ namespace: NS, body: configMap('crud', { a: '1' }) });
  assert.ok(created.metadata.uid);
  const read = await core.readNamespacedConfigMap({ name: 'crud', namespace: NS });
  assert.deepEqual(read.data, { a: '1' });
  read.data.a = '2';
  const replaced = await core.replaceNamespacedConfigMap({ name: 'crud', namespace: NS, body: read });
  assert.notEqual(replaced.metadata.resourceVersion, created.metadata.resourceVersion);
  const stale = { ...created, data: { a: 'stale' } };
  const status = await expectStatus(409, () =>
    core.replaceNamespacedConfigMap({ name: 'crud', namespace: NS, body: stale }));
  assert.equal(status.reason, 'Conflict');
  const list = await core.listNamespacedConfigMap({ namespace: NS });
  assert.deepEqual(list.items.map((i) => i.metadata.name), ['crud']);
  await core.deleteNamespacedConfigMap({ name: 'crud', namespace: NS });
  await expectStatus(404, () => core.readNamespacedConfigMap({ name: 'crud', namespace: NS }));
});

await check('merge patch and JSON patch', async () => {
  await core.createNamespacedConfigMap({ namespace: NS, body: configMap('patched', { a: '1' }) });
  const merged = await core.patchNamespacedConfigMap(
    { name: 'patched', namespace: NS, body: { data: { b: '2' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  assert.deepEqual(merged.data, { a: '1', b: '2' });
  const json = await core.patchNamespacedConfigMap(
    { name: 'patched', namespace: NS, body: [{ op: 'remove', path: '/data/a' }, { op: 'add', path: '/data/c', value: '3' }] },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch));
  assert.deepEqual(json.data, { b: '2', c: '3' });
  await expectStatus(422, () => core.patchNamespacedConfigMap(
    { name: 'patched', namespace: NS, body: [{ op: 'test', path: '/data/b', value: 'no' }] },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch)));
});

await check('Watch, and a Watch resumed from a resourceVersion', async () => {
  const seen = [];
  const path = `/api/v1/namespaces/${NS}/configmaps`;
  const watch = new k8s.Watch(kc);
  const from = (await core.listNamespacedConfigMap({ namespace: NS })).metadata.resourceVersion;
  const first = await watch.watch(path, { resourceVersion: from }, (type, obj) => {
    seen.push(`${type} ${obj.metadata.name}`);
    changed();
  }, () => {});
  await core.createNamespacedConfigMap({ namespace: NS, body: configMap('w1', {}) });
  await until(() => seen.includes('ADDED w1'), 'ADDED w1');
  first.abort();
  // Changes made while no one watched come first when resuming from the last version seen.
  const mid = (await core.readNamespacedConfigMap({ name: 'w1', namespace: NS })).metadata.resourceVersion;
  await core.patchNamespacedConfigMap({ name: 'w1', namespace: NS, body: { data: { x: 'y' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  await core.deleteNamespacedConfigMap({ name: 'w1', namespace: NS });
  const resumed = [];
  const second = await watch.watch(path, { resourceVersion: mid }, (type, obj) => {
    resumed.push(`${type} ${obj.metadata.name}`);
    changed();
  }, () => {});
  await until(() => resumed.length >= 2, 'the resumed events');
  second.abort();
  assert.deepEqual(resumed, ['MODIFIED w1', 'DELETED w1']);
});

await check('makeInformer: handlers, then a relist after the server restarted', async () => {
  await core.createNamespacedConfigMap({ namespace: NS, body: configMap('kept', {}) });
  await core.createNamespacedConfigMap({ namespace: NS, body: configMap('doomed', {}) });
  const path = `/api/v1/namespaces/${NS}/configmaps`;
  const informer = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: NS }));
  const events = [];
  let errors = 0;
  informer.on('add', (obj) => { events.push(`add ${obj.metadata.name}`); changed(); });
  informer.on('update', (obj) => { events.push(`update ${obj.metadata.name}`); changed(); });
  informer.on('delete', (obj) => { events.push(`delete ${obj.metadata.name}`); changed(); });
  informer.on('error', () => { errors++; changed(); });
  await informer.start();
  await until(() => events.includes('add kept') && events.includes('add doomed'), 'the initial adds');
  await core.patchNamespacedConfigMap({ name: 'kept', namespace: NS, body: { data: { v: '1' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  await until(() => events.includes('update kept'), 'update kept');

  // The server goes away: the informer reports an error and stops, as client-node's informers do.
  console.log('RESTART');
  await until(() => errors > 0, 'the informer to see the server go', 30000);
  // Meanwhile the test restarted the server and changed the namespace beyond its watch history.
  const reply = await lines.next();
  assert.equal(reply.value, 'RESTARTED');
  await informer.start();
  await until(() => events.includes('add during-restart') && events.includes('delete doomed'),
    'the relist to add and delete', 20000);
  const cached = informer.list(NS).map((o) => o.metadata.name).sort();
  assert.deepEqual(cached, ['during-restart', 'kept', 'patched']);
  await informer.stop();
});

await check('LeaseCandidates (coordination.k8s.io/v1beta1) and Leases', async () => {
  const now = new Date();
  const candidate = await candidates.createNamespacedLeaseCandidate({
    namespace: NS,
    body: {
      metadata: { name: 'node-a' },
      spec: { leaseName: 'elected', binaryVersion: '1.33.0', emulationVersion: '1.33.0', strategy: 'OldestEmulationVersion', renewTime: now },
    },
  });
  assert.equal(candidate.spec.leaseName, 'elected');
  const listed = await candidates.listNamespacedLeaseCandidate({ namespace: NS });
  assert.deepEqual(listed.items.map((c) => c.metadata.name), ['node-a']);
  await expectStatus(422, () => candidates.createNamespacedLeaseCandidate({
    namespace: NS, body: { metadata: { name: 'bad' }, spec: { leaseName: 'elected' } } }));
  // tenure's coordination controller elects the only candidate: the Lease names it.
  let holder;
  for (const deadline = Date.now() + 15000; holder !== 'node-a' && Date.now() < deadline;) {
    try {
      holder = (await coordination.readNamespacedLease({ name: 'elected', namespace: NS })).spec.holderIdentity;
    } catch (err) {
      if (err.code !== 404) throw err;
    }
    if (holder !== 'node-a') await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(holder, 'node-a');
  const lease = await coordination.createNamespacedLease({
    namespace: NS, body: { metadata: { name: 'plain' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } } });
  assert.equal(lease.spec.holderIdentity, 'me');
  await candidates.deleteNamespacedLeaseCandidate({ name: 'node-a', namespace: NS });
});

stdin.close();
console.log(failures === 0 ? 'PASS' : `FAIL: ${failures} check(s)`);
process.exit(failures === 0 ? 0 : 1);
