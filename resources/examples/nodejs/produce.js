'use strict';
// node produce.js [topic] [count]    (NAMESRV=127.0.0.1:9876 BROKER=127.0.0.1:10911 by default)
const { Producer, Message } = require('ali-ons');
const createTopic = require('./createtopic');

const namesrv = process.env.NAMESRV || '127.0.0.1:9876';
const broker = process.env.BROKER || '127.0.0.1:10911';
const topic = process.argv[2] || 'QuickStart';
const count = Number(process.argv[3] || 10);

(async () => {
  await createTopic(broker, topic);
  await new Promise(r => setTimeout(r, 500)); // let the name server take the new route
  const producer = new Producer({ httpclient: {}, nameSrv: namesrv, producerGroup: 'PID_QuickStart' });
  await producer.ready();
  for (let i = 0; i < count; i++) {
    const msg = new Message(topic, 'TagA', `Hello QRocket ${i}`);
    msg.keys = [`key-${i}`];
    const r = await producer.send(msg);
    console.log(`${r.sendStatus} msgId=${r.msgId} queue=${r.messageQueue.queueId} offset=${r.queueOffset}`);
  }
  await producer.close();
})().catch(e => { console.error(e.message); process.exit(1); });
