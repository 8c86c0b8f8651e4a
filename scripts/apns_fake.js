#!/usr/bin/env node
// A local fake of Apple's push service for tests (Tests/TestSupport/APNsFake.swift): HTTP/2
// over TLS on 127.0.0.1 only, with the certificate a test's own CA signed. Node 20's built-in
// `http2` and `crypto`; nothing is installed.
//
// For every request it checks what APNs checks — the path `/3/device/<token>`, POST,
// `apns-push-type: background`, `apns-priority: 5`, the topic, a content-available body — and
// verifies the bearer JWT: ES256 (raw r||s) under the public key the test generated, `kid`
// and `iss` as configured. It answers as `<dir>/script.json` tells it for that token (a list
// consumed in order, e.g. ["403:ExpiredProviderToken", "200"]; "410:Unregistered:<ms>" adds a
// timestamp; "hang" never answers; "wait-<ms>" answers 200 that much later, as a distant APNs
// would), 200 otherwise, or 403 InvalidProviderToken / 400 with the failed check.
// Each request is appended to <dir>/requests.jsonl with the TLS session it came on and how many
// requests were awaiting their answer at that moment, itself included (`in_flight`: above 1,
// the sender multiplexes streams).
//
// Usage: apns_fake.js --dir DIR --cert CERT --key KEY --public-key PUB --key-id KID --team TEAM --topic TOPIC [--delay-ms N]
'use strict';
const http2 = require('http2');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const dir = args.dir;
const publicKey = crypto.createPublicKey(fs.readFileSync(args['public-key']));
let sessions = 0;
let inFlight = 0;
// --delay-ms: every answer that much later (a benchmark's stand-in for the trip to Apple).
const answerDelay = parseInt(args['delay-ms'] || '0', 10);

function b64json(part) {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

// The reason the JWT is not acceptable, or null.
function checkJWT(authorization) {
  const match = /^bearer (.+)$/.exec(authorization || '');
  if (!match) return 'MissingProviderToken';
  const parts = match[1].split('.');
  if (parts.length !== 3) return 'InvalidProviderToken';
  let header, claims;
  try { header = b64json(parts[0]); claims = b64json(parts[1]); } catch (e) { return 'InvalidProviderToken'; }
  if (header.alg !== 'ES256' || header.kid !== args['key-id'] || claims.iss !== args.team || typeof claims.iat !== 'number') {
    return 'InvalidProviderToken';
  }
  const signature = Buffer.from(parts[2], 'base64url');
  // JWS ES256 is the raw 64-byte r||s; a DER signature fails here as it fails at Apple.
  if (signature.length !== 64) return 'InvalidProviderToken';
  const ok = crypto.verify('sha256', Buffer.from(parts[0] + '.' + parts[1]), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  return ok ? null : 'InvalidProviderToken';
}

function nextAnswer(token) {
  const file = path.join(dir, 'script.json');
  let script = {};
  try { script = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { return '200'; }
  const list = script[token];
  if (!Array.isArray(list) || list.length === 0) return '200';
  const answer = list.shift();
  fs.writeFileSync(file + '.tmp', JSON.stringify(script));
  fs.renameSync(file + '.tmp', file);
  return answer;
}

const server = http2.createSecureServer({ cert: fs.readFileSync(args.cert), key: fs.readFileSync(args.key) });
server.on('session', (session) => { sessions += 1; session.dispatchId = sessions; });
// A stream the client reset (a sender that timed out or was killed) must not end the fake.
server.on('stream', (stream, headers) => {
  stream.on('error', () => {});
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const requestPath = headers[':path'] || '';
    const token = requestPath.startsWith('/3/device/') ? requestPath.slice('/3/device/'.length) : '';
    let status = 200, reason = null, timestamp = null, delay = answerDelay;
    let payload = null;
    try { payload = JSON.parse(body); } catch (e) { payload = null; }
    const jwtProblem = checkJWT(headers.authorization);
    if (headers[':method'] !== 'POST' || !token) { status = 404; reason = 'BadPath'; }
    else if (jwtProblem) { status = 403; reason = jwtProblem; }
    else if (headers['apns-push-type'] !== 'background') { status = 400; reason = 'InvalidPushType'; }
    else if (headers['apns-priority'] !== '5') { status = 400; reason = 'BadPriority'; }
    else if (headers['apns-topic'] !== args.topic) { status = 400; reason = 'BadTopic'; }
    else if (!payload || !payload.aps || payload.aps['content-available'] !== 1) { status = 400; reason = 'PayloadEmpty'; }
    else {
      const answer = nextAnswer(token).split(':');
      if (answer[0].startsWith('wait-')) { delay = parseInt(answer[0].slice('wait-'.length), 10); answer[0] = '200'; }
      status = answer[0] === 'hang' ? 0 : parseInt(answer[0], 10);
      reason = answer[1] || null;
      if (answer[2]) timestamp = parseInt(answer[2], 10);
    }
    inFlight += 1;
    const record = {
      path: requestPath, token, method: headers[':method'], push_type: headers['apns-push-type'] || null,
      priority: headers['apns-priority'] || null, topic: headers['apns-topic'] || null,
      jwt: (headers.authorization || '').replace(/^bearer /, ''), jwt_problem: jwtProblem, body, status, reason,
      session: stream.session.dispatchId, received_at: Date.now() / 1000, in_flight: inFlight,
    };
    fs.appendFileSync(path.join(dir, 'requests.jsonl'), JSON.stringify(record) + '\n');
    // "hang": never answer (a sender killed mid-send).
    if (reason === null && status === 0) return;
    setTimeout(() => {
      inFlight -= 1;
      if (stream.destroyed || stream.closed) return;
      const responseHeaders = { ':status': status, 'apns-id': crypto.randomUUID() };
      if (status === 200) { stream.respond(responseHeaders, { endStream: true }); return; }
      responseHeaders['content-type'] = 'application/json';
      stream.respond(responseHeaders);
      const answerBody = { reason };
      if (timestamp !== null) answerBody.timestamp = timestamp;
      stream.end(JSON.stringify(answerBody));
    }, delay);
  });
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(path.join(dir, 'ready.json.tmp'), JSON.stringify({ port: server.address().port }));
  fs.renameSync(path.join(dir, 'ready.json.tmp'), path.join(dir, 'ready.json'));
});
process.on('SIGTERM', () => process.exit(0));
