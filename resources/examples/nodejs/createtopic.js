'use strict';
// Creates a topic on a broker with UPDATE_AND_CREATE_TOPIC (code 17), as `mqadmin updateTopic`
// does; the broker then re-registers with the name server so the route appears at once.
// (ali-ons never auto-creates topics.)
const net = require('net');

module.exports = function createTopic(brokerAddr, topic, queues = 4) {
  const [host, port] = brokerAddr.split(':');
  const header = Buffer.from(JSON.stringify({
    code: 17, language: 'JAVA', version: 407, opaque: 1, flag: 0,
    extFields: { topic, defaultTopic: 'TBW102', readQueueNums: String(queues), writeQueueNums: String(queues),
      perm: '6', topicFilterType: 'SINGLE_TAG', topicSysFlag: '0', order: 'false' },
  }));
  const frame = Buffer.alloc(8 + header.length);
  frame.writeInt32BE(4 + header.length, 0);
  frame.writeInt32BE(header.length, 4);
  header.copy(frame, 8);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), host, () => sock.write(frame));
    let buf = Buffer.alloc(0);
    sock.setTimeout(3000, () => { sock.destroy(); reject(new Error('broker did not answer')); });
    sock.on('error', reject);
    sock.on('data', d => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4 || buf.length < 4 + buf.readInt32BE(0)) return;
      sock.destroy();
      const h = JSON.parse(buf.slice(8, 8 + (buf.readInt32BE(4) & 0xffffff)).toString());
      if (h.code === 0) resolve(); else reject(new Error(`create topic failed: ${h.code} ${h.remark || ''}`));
    });
  });
};
