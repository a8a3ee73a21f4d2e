'use strict';
// ali-ons (npm, written by nobody here) with ACL keys against a qrocket-namesrv + qrocket-broker
// running with aclEnable=true and the plain_acl.yml that tst_interop_alions writes:
//   aliapp01 / aliapp-secret: PUB|SUB on IT_Acl, every group SUB, every other topic DENY
//   aliadmin / aliadmin-secret: admin (creates the topic)
//
//   QROCKET_NAMESRV=127.0.0.1:9876 QROCKET_BROKER=127.0.0.1:10911 node aclcheck.js
//
// Every wait is bounded. Prints one line per check and a closing "N passed, M failed" line;
// exits non-zero on any failure.

const crypto = require('crypto');
const { Producer, Consumer, Message } = require('ali-ons');
const { rpc } = require('./rpc');

const NAMESRV = process.env.QROCKET_NAMESRV || '127.0.0.1:9876';
const BROKER = process.env.QROCKET_BROKER || '127.0.0.1:10911';
const RUN_ID = `${process.pid}_${Date.now() % 100000}`;
const TOPIC = 'IT_Acl'; // named in the test's plain_acl.yml
const quietLogger = { info() {}, warn() {}, debug() {}, error() {} };
const base = {
  httpclient: {},
  nameSrv: NAMESRV,
  logger: quietLogger,
  pollNameServerInteval: 1000,
  heartbeatBrokerInterval: 2000,
  rebalanceInterval: 1000,
  persistConsumerOffsetInterval: 1000,
};
const app = { accessKey: 'aliapp01', secretKey: 'aliapp-secret' };

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

// RocketMQ's signature, written here independently of QRocket: values of the ext fields sorted by
// key, then the body, HMAC-SHA1, Base64.
function sign(extFields, body, ak, sk) {
  const fields = Object.assign({}, extFields, { AccessKey: ak });
  const content = Object.keys(fields).sort().map(k => String(fields[k])).join('');
  const mac = crypto.createHmac('sha1', sk);
  mac.update(Buffer.from(content, 'utf8'));
  if (body) mac.update(body);
  fields.Signature = mac.digest('base64');
  return fields;
}


const sleep = ms => new Promise(r => setTimeout(r, ms));
function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([promise, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timed out: ${what}`)), ms); })])
    .finally(() => clearTimeout(t));
}

async function main() {
  const create = {
    topic: TOPIC, defaultTopic: 'TBW102', readQueueNums: '2', writeQueueNums: '2',
    perm: '6', topicFilterType: 'SINGLE_TAG', topicSysFlag: '0', order: 'false',
  };
  const unsigned = await rpc(BROKER, 17, create);
  check('unsigned UPDATE_AND_CREATE_TOPIC is refused', unsigned.code === 1 && /No accessKey/.test(unsigned.remark), `${unsigned.code} ${unsigned.remark}`);
  const byApp = await rpc(BROKER, 17, sign(create, null, app.accessKey, app.secretKey));
  check('UPDATE_AND_CREATE_TOPIC from a non-admin account is refused', byApp.code === 1 && /Need admin permission/.test(byApp.remark), `${byApp.code} ${byApp.remark}`);
  const byAdmin = await rpc(BROKER, 17, sign(create, null, 'aliadmin', 'aliadmin-secret'));
  check('UPDATE_AND_CREATE_TOPIC signed by the admin account', byAdmin.code === 0, `${byAdmin.code} ${byAdmin.remark}`);
  const deadline = Date.now() + 10000;
  while ((await rpc(NAMESRV, 105, { topic: TOPIC })).code !== 0) {
    if (Date.now() > deadline) throw new Error(`no route of ${TOPIC}`);
    await sleep(50);
  }

  // Signed producer and consumer: everything goes through, including a retry (send-back).
  const producer = new Producer(Object.assign({}, base, app, { producerGroup: `PID_acl_${RUN_ID}` }));
  await producer.ready();
  const consumer = new Consumer(Object.assign({}, base, app, {
    consumerGroup: 'GID_acl', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 3,
  }));
  consumer.on('error', () => {});
  const got = new Set();
  let retried = false;
  let done;
  const allIn = new Promise(r => { done = r; });
  consumer.subscribe(TOPIC, '*', async msg => {
    if (msg.properties.seq === '0' && !retried) { retried = true; return Consumer.ACTION_RETRY; }
    got.add(msg.properties.seq);
    if (got.size === 20) done();
  });
  await consumer.ready();
  let ok = 0;
  for (let i = 0; i < 20; i++) {
    const m = new Message(TOPIC, 'TagA', `acl-${i}`);
    m.properties.seq = String(i);
    const r = await producer.send(m);
    if (r.sendStatus === 'SEND_OK') ok++;
  }
  check('20 signed sends answered SEND_OK', ok === 20, `${ok}`);
  let consumed = true;
  try { await withTimeout(allIn, 40000, `20 messages (got ${got.size})`); } catch (e) { consumed = false; }
  check('a signed consumer receives all 20, one of them through its retry topic', consumed && retried, `${got.size}`);

  // A wrong secret and a topic the account may not publish to.
  // Its own client instance (ali-ons shares one client, and its keys, per clientIP@instanceName).
  const bad = new Producer(Object.assign({}, base, { accessKey: app.accessKey, secretKey: 'not-the-secret', instanceName: 'BAD', producerGroup: `PID_bad_${RUN_ID}` }));
  let badError = '';
  try {
    await bad.ready();
    await bad.send(new Message(TOPIC, 'TagA', 'must not be stored'));
  } catch (e) { badError = e.message; }
  // ali-ons retries and then reports "Send [4] times, still failed" without the broker's remark.
  check('an ali-ons producer with a wrong secret cannot send', /Check signature failed|still failed/i.test(badError), badError);
  const wrong = await rpc(BROKER, 30, sign({ topic: TOPIC, queueId: '0' }, null, app.accessKey, 'not-the-secret'));
  check('a request signed with a wrong secret gets RocketMQ\'s remark', wrong.code === 1 && /Check signature failed for accessKey=aliapp01/.test(wrong.remark), `${wrong.code} ${wrong.remark}`);
  const denied = await rpc(BROKER, 310, sign({ a: 'PID_x', b: 'SomeOtherTopic', c: 'TBW102', d: '4', e: '0', f: '0', g: String(Date.now()), h: '0', i: '', j: '0', k: 'false', m: 'false' }, null, app.accessKey, app.secretKey));
  check('a topic outside the account is refused', denied.code === 1 && /No default permission for topic:SomeOtherTopic/.test(denied.remark), `${denied.code} ${denied.remark}`);

  await consumer.close();
  await producer.close();
  try { await bad.close(); } catch (e) { /* never became ready */ }
}

main().catch(e => { failed++; console.log(`FAIL ${e.stack || e}`); }).finally(() => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
});
