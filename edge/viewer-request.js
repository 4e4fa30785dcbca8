import cf from 'cloudfront';
/* eslint-disable @typescript-eslint/no-unused-vars -- the runtime calls handler; ES5 catch needs a binding */

// Viewer request, cloudfront-js-2.0. KVS key = host; values (EDGE_VALUE in cloudfront-function.ts):
// {"s":prefix} serve a deploy, {"r":host,"c":301} redirect, {"x":1} removed. Else 404 (fail closed).
const kvsId = '__KVS_ID__';
const kvsHandle = cf.kvs(kvsId);

const NOT_SERVED = 'This domain is not served';
const REDIRECT = { 301: 'Moved Permanently', 302: 'Found', 307: 'Temporary Redirect', 308: 'Permanent Redirect' };
const HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const PREFIX = /^[\w-]+(\/[\w-][\w.-]*)*$/;

function notFound(text) {
  return {
    statusCode: 404,
    statusDescription: 'Not Found',
    headers: { 'content-type': { value: 'text/html; charset=utf-8' }, 'cache-control': { value: 'no-store' } },
    body: { encoding: 'text', data: `<!doctype html><title>Not found</title><p>${text}</p>` },
  };
}

// No dot segments (even encoded), backslash or NUL.
function unsafePath(uri) {
  let path;
  try {
    path = decodeURIComponent(uri);
  } catch (err) {
    return true;
  }
  return path.charAt(0) !== '/' || /[\\\0]|\/\.\.?(\/|$)/.test(path);
}

// "/" and "/dir/" get index.html; "/page" gets "/page/index.html".
function sitePath(uri) {
  const last = uri.slice(uri.lastIndexOf('/') + 1);
  if (last === '') return uri + 'index.html';
  return last.indexOf('.') < 0 ? uri + '/index.html' : uri;
}

// The query as sent (rawQueryString), else rebuilt from the parsed object.
function query(request) {
  if (typeof request.rawQueryString === 'function') {
    const raw = request.rawQueryString();
    return raw === undefined ? '' : '?' + raw;
  }
  const parts = [];
  const qs = request.querystring || {};
  for (const key in qs) {
    const values = qs[key].multiValue || [qs[key]];
    for (let i = 0; i < values.length; i++) {
      parts.push(values[i].value === '' ? key : key + '=' + values[i].value);
    }
  }
  return parts.length ? '?' + parts.join('&') : '';
}

async function handler(event) {
  const request = event.request;
  const header = request.headers.host;
  const host = header ? header.value.toLowerCase().replace(/:\d*$/, '').replace(/\.$/, '') : '';
  if (host === '') return notFound(NOT_SERVED);
  let raw;
  try {
    raw = await kvsHandle.get(host);
  } catch (err) {
    console.log(`kvs get ${host}: ${err}`);
    return notFound(NOT_SERVED);
  }
  let entry;
  try {
    entry = JSON.parse(raw);
  } catch (err) {
    entry = null;
  }
  if (entry !== null && typeof entry === 'object') {
    if (entry.x === 1) return notFound(NOT_SERVED);
    if (typeof entry.s === 'string' && PREFIX.test(entry.s)) {
      if (unsafePath(request.uri)) return notFound('Not found');
      request.uri = '/' + entry.s + sitePath(request.uri);
      return request;
    }
    const code = entry.c === undefined ? 301 : entry.c;
    if (typeof entry.r === 'string' && HOST.test(entry.r) && typeof code === 'number' && REDIRECT[code]) {
      return {
        statusCode: code,
        statusDescription: REDIRECT[code],
        headers: {
          location: { value: `https://${entry.r}${request.uri}${query(request)}` },
          'cache-control': { value: 'max-age=3600' },
        },
      };
    }
  }
  console.log(`bad value for ${host}: ${raw}`);
  return notFound(NOT_SERVED);
}
