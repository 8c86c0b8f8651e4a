#!/usr/bin/env node
// A local fake of Google's OAuth token endpoint and FCM HTTP v1 for tests
// (Tests/TestSupport/FCMFake.swift): plain HTTP/1.1 on 127.0.0.1 only, Node 20's built-in
// `http` and `crypto`.
//
// POST /token: the service account's assertion must be an RS256 JWT that verifies under the
// public half of the test's key, with iss = the client email, aud = this URL and the FCM scope;
// it answers a fresh access token (`tok-<n>`, valid an hour).
// POST /v1/projects/<project>/messages:send: the bearer must be a token it issued and not
// revoked; the body a data message with android.priority high. It answers as
// <dir>/script.json says for the device token ("404:UNREGISTERED", "401", "429", "503"), else 200.
// Every request is appended to <dir>/requests.jsonl, with the client's port: one per TCP
// connection, so a kept connection shows as one port.
//
// Usage: fcm_fake.js --dir DIR --key PRIVATE_PEM --email EMAIL --project PROJECT
'use strict';
const http = require('http');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const dir = args.dir;
const publicKey = crypto.createPublicKey(fs.readFileSync(args.key));
const issued = new Set();
let port = 0;

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

function assertionProblem(jwt) {
  const parts = (jwt || '').split('.');
  if (parts.length !== 3) return 'malformed';
  let header, claims;
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url'));
    claims = JSON.parse(Buffer.from(parts[1], 'base64url'));
  } catch (e) { return 'malformed'; }
  if (header.alg !== 'RS256') return 'alg';
  const ok = crypto.verify('sha256', Buffer.from(parts[0] + '.' + parts[1]), publicKey, Buffer.from(parts[2], 'base64url'));
  if (!ok) return 'signature';
  if (claims.iss !== args.email || claims.aud !== `http://127.0.0.1:${port}/token`) return 'claims';
  if (claims.scope !== 'https://www.googleapis.com/auth/firebase.messaging') return 'scope';
  return null;
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const record = { path: request.url, method: request.method, authorization: request.headers.authorization || null, body,
                     connection: request.socket.remotePort };
    let status = 200, answer = {};
    if (request.url === '/token') {
      const form = new URLSearchParams(body);
      const problem = form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' ? assertionProblem(form.get('assertion')) : 'grant_type';
      record.problem = problem;
      if (problem) { status = 400; answer = { error: 'invalid_grant', error_description: problem }; }
      else {
        const token = `tok-${issued.size + 1}`;
        issued.add(token);
        answer = { access_token: token, expires_in: 3600, token_type: 'Bearer' };
      }
    } else if (request.url === `/v1/projects/${args.project}/messages:send` && request.method === 'POST') {
      const bearer = (request.headers.authorization || '').replace(/^Bearer /, '');
      let message = null;
      try { message = JSON.parse(body).message; } catch (e) { message = null; }
      record.token = message && message.token;
      if (!issued.has(bearer)) { status = 401; answer = { error: { code: 401, status: 'UNAUTHENTICATED' } }; }
      else if (!message || !message.token || !message.data || !message.android || message.android.priority !== 'high') {
        status = 400; answer = { error: { code: 400, status: 'INVALID_ARGUMENT' } };
      } else {
        const scripted = nextAnswer(message.token).split(':');
        status = parseInt(scripted[0], 10);
        if (status === 401) issued.delete(bearer);
        answer = status === 200 ? { name: `projects/${args.project}/messages/1` }
          : { error: { code: status, status: scripted[1] || 'ERROR', details: [{ errorCode: scripted[1] || 'ERROR' }] } };
      }
    } else { status = 404; answer = { error: 'not found' }; }
    record.status = status;
    fs.appendFileSync(path.join(dir, 'requests.jsonl'), JSON.stringify(record) + '\n');
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
  });
});
server.listen(0, '127.0.0.1', () => {
  port = server.address().port;
  fs.writeFileSync(path.join(dir, 'ready.json.tmp'), JSON.stringify({ port }));
  fs.renameSync(path.join(dir, 'ready.json.tmp'), path.join(dir, 'ready.json'));
});
process.on('SIGTERM', () => process.exit(0));
