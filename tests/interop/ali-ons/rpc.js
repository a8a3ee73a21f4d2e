'use strict';
// A minimal RocketMQ remoting client for the steps ali-ons cannot do (creating topics, raw
// requests), shared by roundtrip.js, aclcheck.js and grpcnode.js: one request frame (JSON header,
// an optional body) on a fresh connection, the answer's code, remark, extFields and body.
const net = require('net');

function rpc(addr, code, extFields, timeoutMs = 3000, body = Buffer.alloc(0)) {
  const [host, port] = addr.split(':');
  return new Promise((resolve, reject) => {
    const header = Buffer.from(JSON.stringify({ code, language: 'JAVA', version: 407, opaque: 1, flag: 0, extFields }));
    const frame = Buffer.alloc(8 + header.length + body.length);
    frame.writeInt32BE(4 + header.length + body.length, 0);
    frame.writeInt32BE(header.length, 4);
    header.copy(frame, 8);
    body.copy(frame, 8 + header.length);
    const sock = net.connect(Number(port), host);
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => { sock.destroy(); reject(new Error(`rpc ${code} to ${addr} timed out`)); }, timeoutMs);
    sock.on('connect', () => sock.write(frame));
    sock.on('error', e => { clearTimeout(timer); reject(e); });
    sock.on('data', d => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4 || buf.length < 4 + buf.readInt32BE(0)) return;
      clearTimeout(timer);
      sock.destroy();
      const headerLen = buf.readInt32BE(4) & 0xffffff;
      const h = JSON.parse(buf.slice(8, 8 + headerLen).toString());
      resolve({ code: h.code, remark: h.remark || '', extFields: h.extFields || {}, body: buf.slice(8 + headerLen, 4 + buf.readInt32BE(0)) });
    });
  });
}

module.exports = { rpc };
