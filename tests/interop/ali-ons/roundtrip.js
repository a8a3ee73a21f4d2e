'use strict';
// Runs the third-party RocketMQ client ali-ons (npm, pure JavaScript, written by nobody here)
// against a running qrocket-namesrv + qrocket-broker and checks what comes back.
//
//   QROCKET_NAMESRV=127.0.0.1:9876 QROCKET_BROKER=127.0.0.1:10911 node roundtrip.js
//
// The broker should run with short delay levels (messageDelayLevel=1s 1s 1s ...) so that the
// retry scenario finishes in seconds. Every wait is bounded. Prints one line per check and a
// closing "N passed, M failed" line; exits non-zero on any failure.

const crypto = require('crypto');
const { Producer, Consumer, Message } = require('ali-ons');
const { rpc } = require('./rpc');

const NAMESRV = process.env.QROCKET_NAMESRV || '127.0.0.1:9876';
const BROKER = process.env.QROCKET_BROKER || '127.0.0.1:10911';
const RUN_ID = `${process.pid}_${Date.now() % 100000}`;
const httpclient = {}; // required by the constructor, unused when nameSrv is given
const quietLogger = { info() {}, warn() {}, debug() {}, error: (...a) => console.error(...a) };
const fastClient = {
  httpclient,
  nameSrv: NAMESRV,
  logger: quietLogger,
  pollNameServerInteval: 1000,
  heartbeatBrokerInterval: 2000,
  rebalanceInterval: 1000,
  persistConsumerOffsetInterval: 1000,
};

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`PASS ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`);
  }
}


const sleep = ms => new Promise(r => setTimeout(r, ms));

async function waitFor(what, fn, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return true;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

async function createTopic(topic, queues) {
  const r = await rpc(BROKER, 17, {
    topic, defaultTopic: 'TBW102', readQueueNums: String(queues), writeQueueNums: String(queues),
    perm: '6', topicFilterType: 'SINGLE_TAG', topicSysFlag: '0', order: 'false',
  });
  if (r.code !== 0) throw new Error(`UPDATE_AND_CREATE_TOPIC ${topic}: code ${r.code} ${r.remark}`);
  // The broker re-registers with the name server at once; wait until the route is served.
  await waitFor(`route of ${topic}`, async () => (await rpc(NAMESRV, 105, { topic })).code === 0, 10000);
}

function newConsumer(group, extra = {}) {
  const c = new Consumer(Object.assign({}, fastClient, {
    consumerGroup: group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    maxReconsumeTimes: 3,
  }, extra));
  c.on('error', err => { if (!/process mq message failed/.test(err.message)) console.error('consumer error:', err.message); });
  return c;
}

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([promise, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timed out: ${what}`)), ms); })])
    .finally(() => clearTimeout(t));
}

// --- scenarios ---------------------------------------------------------------------------------
async function roundTrip1000(producer) {
  const topic = `IT_RoundTrip_${RUN_ID}`;
  await createTopic(topic, 4);
  const consumer = newConsumer(`GID_rt_${RUN_ID}`);
  const received = new Map();
  let done;
  const allIn = new Promise(r => { done = r; });
  consumer.subscribe(topic, '*', async msg => {
    received.set(msg.properties.seq, msg);
    if (received.size === 1000) done();
  });
  await consumer.ready();
  const sent = new Map();
  for (let i = 0; i < 1000; i++) {
    const msg = new Message(topic, i % 2 ? 'TagB' : 'TagA', `body-${i}-${'x'.repeat(i % 50)}`);
    msg.keys = [`key-${i}`, `k2-${i}`];
    msg.properties.seq = String(i);
    msg.properties['user.prop'] = `v${i}`;
    const r = await producer.send(msg);
    if (r.sendStatus !== 'SEND_OK') throw new Error(`send ${i}: ${r.sendStatus}`);
    sent.set(String(i), r);
  }
  check('1000 sends answered SEND_OK', sent.size === 1000);
  await withTimeout(allIn, 30000, `1000 messages (got ${received.size})`);
  let bad = 0;
  for (let i = 0; i < 1000; i++) {
    const m = received.get(String(i));
    const ok = m && m.tags === (i % 2 ? 'TagB' : 'TagA') && m.keys === `key-${i} k2-${i}`
      && m.properties['user.prop'] === `v${i}` && m.body.toString() === `body-${i}-${'x'.repeat(i % 50)}`
      && m.msgId === sent.get(String(i)).msgId && m.topic === topic;
    if (!ok && bad++ < 3) console.log('  mismatch at', i, m && { tags: m.tags, keys: m.keys, msgId: m.msgId, sentId: sent.get(String(i)).msgId });
  }
  check('1000 messages round-trip with keys, tags, user properties, bodies and msgIds intact', bad === 0, `${bad} differ`);
  await consumer.close();
}

async function bodySizes(producer) {
  const topic = `IT_Bodies_${RUN_ID}`;
  await createTopic(topic, 1);
  const bodies = {
    empty: Buffer.alloc(0),
    k4: Buffer.from('4k-'.repeat(1366)).slice(0, 4096), // ≥ 4096 B: ali-ons deflates it
    m1: crypto.randomBytes(1024 * 1024), // incompressible, still flagged compressed
  };
  const consumer = newConsumer(`GID_bodies_${RUN_ID}`);
  const got = {};
  let done;
  const allIn = new Promise(r => { done = r; });
  consumer.subscribe(topic, '*', async msg => {
    got[msg.tags] = msg.body || Buffer.alloc(0);
    if (Object.keys(got).length === 3) done();
  });
  await consumer.ready();
  for (const [name, body] of Object.entries(bodies)) {
    const r = await producer.send(new Message(topic, name, body));
    check(`send ${name} body (${body.length} B)`, r.sendStatus === 'SEND_OK', r.sendStatus);
  }
  await withTimeout(allIn, 20000, 'three bodies');
  for (const [name, body] of Object.entries(bodies)) {
    check(`${name} body (${body.length} B) comes back byte for byte`, got[name] && Buffer.compare(got[name], body) === 0);
  }
  await consumer.close();
}

async function retryRedelivery(producer) {
  const topic = `IT_Retry_${RUN_ID}`;
  await createTopic(topic, 2);
  const consumer = newConsumer(`GID_retry_${RUN_ID}`);
  const attempts = new Map();
  const redelivered = new Map();
  let done;
  const allIn = new Promise(r => { done = r; });
  consumer.subscribe(topic, '*', async msg => {
    const seq = msg.properties.seq;
    const n = (attempts.get(seq) || 0) + 1;
    attempts.set(seq, n);
    if (Number(seq) % 2 === 0 && n === 1) return Consumer.ACTION_RETRY; // fail the first delivery
    if (n > 1) redelivered.set(seq, msg);
    if ([...attempts.keys()].length === 10 && redelivered.size === 5) done();
  });
  await consumer.ready();
  for (let i = 0; i < 10; i++) {
    const msg = new Message(topic, 'TagR', `retry-${i}`);
    msg.properties.seq = String(i);
    await producer.send(msg);
  }
  await withTimeout(allIn, 40000, `redeliveries (got ${redelivered.size} of 5)`);
  const ok = [...redelivered.values()].every(m => m.reconsumeTimes === 1 && m.body.toString() === `retry-${m.properties.seq}`
    && Number(m.properties.seq) % 2 === 0 && m.originMessageId);
  check('failed deliveries come back from %RETRY% with reconsumeTimes 1 and ORIGIN_MESSAGE_ID', ok && redelivered.size === 5);
  await consumer.close();
}

async function tagFilter(producer) {
  const topic = `IT_Tag_${RUN_ID}`;
  await createTopic(topic, 2);
  const consumer = newConsumer(`GID_tag_${RUN_ID}`, { postSubscriptionWhenPull: true });
  const tags = [];
  let done;
  const sentinelIn = new Promise(r => { done = r; });
  consumer.subscribe(topic, 'TagA', async msg => {
    tags.push(msg.tags);
    if (msg.properties.sentinel) done();
  });
  await consumer.ready();
  for (let i = 0; i < 40; i++) await producer.send(new Message(topic, i % 2 ? 'TagB' : 'TagA', `t-${i}`));
  for (let q = 0; q < 2; q++) { // one sentinel per queue: after them, nothing earlier can still be in flight
    const s = new Message(topic, 'TagA', 'sentinel');
    s.properties.sentinel = 'true';
    await producer.send(s);
  }
  await withTimeout(sentinelIn, 20000, 'tag sentinel');
  await waitFor('20 TagA messages', () => tags.filter(t => t === 'TagA').length >= 21, 10000).catch(() => {});
  check('a TagA subscription gets only TagA', tags.length > 0 && tags.every(t => t === 'TagA'), `got ${JSON.stringify([...new Set(tags)])}`);
  check('a TagA subscription gets every TagA message', tags.length >= 21, `got ${tags.length}`);
  await consumer.close();
}

(async () => {
  const producer = new Producer(Object.assign({}, fastClient, { producerGroup: `PID_it_${RUN_ID}` }));
  await producer.ready();
  for (const scenario of [roundTrip1000, bodySizes, retryRedelivery, tagFilter]) {
    try {
      await scenario(producer);
    } catch (e) {
      check(scenario.name, false, e.stack || e.message);
    }
  }
  try {
    await withTimeout(producer.close(), 5000, 'producer close');
    check('producer close (UNREGISTER_CLIENT answered)', true);
  } catch (e) {
    check('producer close (UNREGISTER_CLIENT answered)', false, e.message);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch(e => {
  console.error(e);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
});
