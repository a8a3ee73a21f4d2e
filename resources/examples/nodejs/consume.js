'use strict';
// node consume.js [topic]    (NAMESRV=127.0.0.1:9876 by default); Ctrl-C to stop
const { Consumer } = require('ali-ons');

const namesrv = process.env.NAMESRV || '127.0.0.1:9876';
const topic = process.argv[2] || 'QuickStart';

const consumer = new Consumer({
  httpclient: {}, nameSrv: namesrv, consumerGroup: 'GID_QuickStart',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic, '*', async msg => {
  console.log(`received ${msg.msgId} tags=${msg.tags} keys=${msg.keys} body=${msg.body}`);
});
consumer.on('error', err => console.error(err.message));
process.on('SIGINT', async () => { await consumer.close(); process.exit(0); });
