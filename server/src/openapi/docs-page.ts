// The interactive API page at /api/docs/ (docs/api.md#openapi): a small page of our own, served
// from our origin, because the CSP (http/security.ts) allows only same-origin scripts and no
// inline script. It reads /api/openapi.json, lists every call with its parameters and schemas,
// and sends a call with the token the reader pastes or gets by signing in on the page.

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pipdesk API</title>
<link rel="stylesheet" href="/api/docs/docs.css">
<script src="/api/docs/docs.js" defer></script>
</head>
<body>
<header>
<h1>Pipdesk API</h1>
<p>Generated from the contract: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>
<form id="auth">
<label>Access token <input id="token" type="password" autocomplete="off" placeholder="paste a token, or sign in"></label>
<label>E-mail <input id="email" type="email" autocomplete="username"></label>
<label>Password <input id="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
<span id="auth-status" role="status"></span>
</form>
</header>
<main id="operations" aria-busy="true"><p>Loading the API document…</p></main>
</body>
</html>
`;

export const DOCS_CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0 auto; max-width: 1100px; padding: 1rem; }
header { border-bottom: 1px solid #8884; margin-bottom: 1rem; }
form#auth { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin-bottom: 1rem; }
label { display: flex; flex-direction: column; font-size: .85rem; gap: .2rem; }
input, textarea, button { font: inherit; }
textarea { width: 100%; min-height: 6rem; font-family: ui-monospace, monospace; }
h2 { margin-top: 2rem; text-transform: capitalize; }
details.op { border: 1px solid #8884; border-radius: 6px; margin: .4rem 0; }
details.op > summary { cursor: pointer; padding: .5rem; display: flex; gap: .75rem; align-items: baseline; }
details.op > div { padding: .5rem 1rem 1rem; }
.method { font-weight: 700; min-width: 4rem; font-family: ui-monospace, monospace; }
.method.get { color: #1a7f37; } .method.post { color: #0969da; } .method.put, .method.patch { color: #9a6700; } .method.delete { color: #cf222e; }
.path { font-family: ui-monospace, monospace; }
.lock { font-size: .8rem; opacity: .7; }
pre { background: #8881; padding: .5rem; overflow: auto; max-height: 24rem; font-size: .8rem; }
.try { display: grid; gap: .5rem; margin-top: .75rem; }
.answer-status { font-weight: 700; }
`;

export const DOCS_JS = `'use strict';
(function () {
  var doc = null;
  var tokenInput = document.getElementById('token');
  var statusEl = document.getElementById('auth-status');
  tokenInput.value = sessionStorage.getItem('pipdesk-docs-token') || '';
  tokenInput.addEventListener('change', function () { sessionStorage.setItem('pipdesk-docs-token', tokenInput.value); });

  document.getElementById('auth').addEventListener('submit', function (event) {
    event.preventDefault();
    var body = { email: document.getElementById('email').value, password: document.getElementById('password').value };
    fetch('/api/auth/login/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (res) { return res.json(); })
      .then(function (answer) {
        if (answer.success) {
          tokenInput.value = answer.data.token;
          sessionStorage.setItem('pipdesk-docs-token', answer.data.token);
          statusEl.textContent = 'Signed in as ' + answer.data.user.email;
        } else {
          statusEl.textContent = answer.error;
        }
      })
      .catch(function () { statusEl.textContent = 'Sign-in failed'; });
  });

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.append(c); });
    return node;
  }

  function resolve(schema) {
    if (schema && schema.$ref) return doc.components.schemas[schema.$ref.split('/').pop()];
    return schema;
  }

  function pretty(value) { return JSON.stringify(value, null, 2); }

  function tryIt(path, method, op) {
    var box = el('div', { class: 'try' });
    var inputs = {};
    (op.parameters || []).forEach(function (p) {
      var input = el('input', { name: p.name, 'data-in': p.in });
      inputs[p.in + ':' + p.name] = input;
      box.append(el('label', {}, [p.in + ' ' + p.name + (p.required ? ' (required)' : ''), input]));
    });
    var body = null;
    if (op.requestBody) {
      body = el('textarea', { 'aria-label': 'JSON body' });
      body.value = '{}';
      box.append(el('label', {}, ['JSON body', body]));
    }
    var send = el('button', { type: 'button' }, ['Send']);
    var out = el('pre', { 'aria-live': 'polite' });
    var statusLine = el('span', { class: 'answer-status' });
    send.addEventListener('click', function () {
      var url = path;
      var query = new URLSearchParams();
      var headers = {};
      (op.parameters || []).forEach(function (p) {
        var value = inputs[p.in + ':' + p.name].value;
        if (value === '') return;
        if (p.in === 'path') url = url.replace('{' + p.name + '}', encodeURIComponent(value));
        else if (p.in === 'query') query.set(p.name, value);
        else if (p.in === 'header') headers[p.name] = value;
      });
      if (tokenInput.value) headers.authorization = 'Bearer ' + tokenInput.value;
      var init = { method: method.toUpperCase(), headers: headers };
      if (body) { headers['content-type'] = 'application/json'; init.body = body.value; }
      var qs = query.toString();
      fetch(url + (qs ? '?' + qs : ''), init)
        .then(function (res) {
          statusLine.textContent = res.status + ' ' + res.statusText;
          return res.text();
        })
        .then(function (text) {
          try { out.textContent = pretty(JSON.parse(text)); } catch (e) { out.textContent = text; }
        })
        .catch(function (err) { out.textContent = String(err); });
    });
    box.append(send, statusLine, out);
    return box;
  }

  function render() {
    var main = document.getElementById('operations');
    main.textContent = '';
    var byTag = {};
    Object.keys(doc.paths).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        var tag = (op.tags && op.tags[0]) || 'other';
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: method, op: op });
      });
    });
    (doc.tags || []).map(function (t) { return t.name; }).concat(Object.keys(byTag)).forEach(function (tag, i, all) {
      if (all.indexOf(tag) !== i || !byTag[tag]) return;
      main.append(el('h2', {}, [tag]));
      byTag[tag].forEach(function (entry) {
        var op = entry.op;
        var summary = el('summary', {}, [
          el('span', { class: 'method ' + entry.method }, [entry.method.toUpperCase()]),
          el('span', { class: 'path' }, [entry.path]),
          el('span', {}, [op.summary || '']),
          el('span', { class: 'lock' }, [op.security && op.security.length ? 'signed in' : '']),
        ]);
        var body = el('div');
        if (op.description) body.append(el('p', {}, [op.description]));
        if (op.parameters) body.append(el('h4', {}, ['Parameters']), el('pre', {}, [pretty(op.parameters)]));
        if (op.requestBody) {
          body.append(el('h4', {}, ['Request body']), el('pre', {}, [pretty(op.requestBody.content['application/json'].schema)]));
        }
        Object.keys(op.responses).forEach(function (status) {
          var answer = op.responses[status];
          var types = Object.keys(answer.content || {});
          var schema = types[0] === 'application/json' ? resolve(answer.content[types[0]].schema) : null;
          body.append(el('h4', {}, [status + ': ' + answer.description + ' (' + types.join(', ') + ')']));
          if (schema) body.append(el('pre', {}, [pretty(schema)]));
        });
        body.append(el('h4', {}, ['Try it']), tryIt(entry.path, entry.method, op));
        main.append(el('details', { class: 'op', id: op.operationId }, [summary, body]));
      });
    });
    main.setAttribute('aria-busy', 'false');
  }

  fetch('/api/openapi.json')
    .then(function (res) { return res.json(); })
    .then(function (json) { doc = json; render(); })
    .catch(function (err) { document.getElementById('operations').textContent = 'Could not load the API document: ' + err; });
})();
`;
