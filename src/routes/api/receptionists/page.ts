/**
 * The receptionist's chat page and embeddable snippet (issue 38 §1): a self-contained page (inline style and one
 * script, pinned by their hashes in its Content-Security-Policy) that posts the visitor's messages to the chat API
 * and keeps the conversation id for the tab; and a script that puts a chat button on the buyer's site opening that
 * page in a frame.
 */
import { createHash } from 'node:crypto';
import { escapeHtml as e } from '../../../products/deliverables/util';

const hash = (source: string): string => `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;

const STYLE = `
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; background: #f9fafb; display: flex; flex-direction: column; height: 100vh; }
header { background: #0f766e; color: #fff; padding: .9rem 1rem; font-weight: 600; }
#log { flex: 1; overflow-y: auto; padding: 1rem; display: flex; flex-direction: column; gap: .5rem; }
#log p { margin: 0; padding: .6rem .8rem; border-radius: 12px; max-width: 85%; white-space: pre-wrap; line-height: 1.4; }
#log p.receptionist { background: #fff; border: 1px solid #e5e7eb; align-self: flex-start; }
#log p.visitor { background: #0f766e; color: #fff; align-self: flex-end; }
#status { padding: 0 1rem; color: #b91c1c; font-weight: 600; min-height: 1.2rem; }
form { display: flex; gap: .5rem; padding: .75rem 1rem 1rem; }
input { flex: 1; padding: .65rem .75rem; border: 1px solid #d1d5db; border-radius: 8px; font: inherit; }
button { padding: .65rem 1rem; border: 0; border-radius: 8px; background: #0f766e; color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
button:disabled, input:disabled { opacity: .5; cursor: not-allowed; }
`;

const SCRIPT = `(function () {
  var root = document.getElementById('chat');
  var log = document.getElementById('log');
  var form = document.getElementById('send');
  var input = document.getElementById('text');
  var button = form.querySelector('button');
  var status = document.getElementById('status');
  var api = root.getAttribute('data-messages');
  var key = 'receptionist-' + root.getAttribute('data-id');
  var conv = null;
  try { conv = sessionStorage.getItem(key); } catch (err) {}
  function add(role, text) {
    var p = document.createElement('p');
    p.className = role;
    p.textContent = text;
    log.appendChild(p);
    log.scrollTop = log.scrollHeight;
  }
  function stop(message) {
    status.textContent = message;
    input.disabled = true;
    button.disabled = true;
  }
  var initial = root.getAttribute('data-status-message');
  if (initial) stop(initial);
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var text = input.value.trim();
    if (!text || input.disabled) return;
    add('visitor', text);
    input.value = '';
    button.disabled = true;
    var body = { text: text };
    if (conv) body.conversation_id = conv;
    fetch(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (res) { return res.json().then(function (json) { return { res: res, json: json }; }); })
      .then(function (x) {
        button.disabled = false;
        if (!x.res.ok) {
          if (x.res.status === 423 || x.res.status === 410) return stop(x.json.detail);
          if (x.json.code === 'conversation_not_found') { conv = null; try { sessionStorage.removeItem(key); } catch (err) {} }
          return add('receptionist', x.json.detail || 'Sorry, something went wrong; please try again.');
        }
        conv = x.json.conversation_id;
        try { sessionStorage.setItem(key, conv); } catch (err) {}
        x.json.replies.forEach(function (r) { add('receptionist', r); });
      })
      .catch(function () {
        button.disabled = false;
        add('receptionist', 'The connection failed; please try again.');
      });
  });
})();`;

/** The chat page of a receptionist. `statusMessage`: why it takes no messages now (suspended), else null. */
export function chatPage(p: {
  id: string;
  business: string;
  greeting: string;
  messagesUrl: string;
  statusMessage: string | null;
}): string {
  const csp = [
    "default-src 'none'",
    `style-src ${hash(STYLE)}`,
    `script-src ${hash(SCRIPT)}`,
    "connect-src 'self'",
    // The data: favicon: the page asks nothing of its host beyond the API.
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<link rel="icon" href="data:,">',
    `<title>Chat with ${e(p.business)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    `<body id="chat" data-id="${e(p.id)}" data-messages="${e(p.messagesUrl)}" data-status-message="${e(p.statusMessage ?? '')}">`,
    `<header>${e(p.business)}</header>`,
    `<div id="log" role="log" aria-live="polite"><p class="receptionist">${e(p.greeting)}</p></div>`,
    '<div id="status" role="status"></div>',
    '<form id="send"><input id="text" name="text" autocomplete="off" maxlength="2000" aria-label="Your message" placeholder="Type your message"><button type="submit">Send</button></form>',
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

/** The embeddable snippet's script: a chat button that opens `chatUrl` in a frame. */
export function embedScript(chatUrl: string, business: string): string {
  return `(function () {
  var url = ${JSON.stringify(chatUrl)};
  var label = ${JSON.stringify(`Chat with ${business}`)};
  function go() {
    var b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'Chat with us';
    b.setAttribute('aria-label', label);
    b.style.cssText = 'position:fixed;bottom:20px;right:20px;z-index:2147483000;padding:12px 18px;border:0;border-radius:24px;background:#0f766e;color:#fff;font:600 15px system-ui,sans-serif;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.25)';
    var frame = null;
    b.addEventListener('click', function () {
      if (!frame) {
        frame = document.createElement('iframe');
        frame.src = url;
        frame.title = label;
        frame.style.cssText = 'position:fixed;bottom:76px;right:20px;width:360px;max-width:calc(100vw - 40px);height:520px;max-height:calc(100vh - 100px);border:1px solid #d1d5db;border-radius:12px;background:#fff;z-index:2147483000';
        document.body.appendChild(frame);
      } else {
        frame.style.display = frame.style.display === 'none' ? 'block' : 'none';
      }
    });
    document.body.appendChild(b);
  }
  if (document.body) go();
  else document.addEventListener('DOMContentLoaded', go);
})();
`;
}

/** The HTML the buyer pastes into their site. */
export const embedSnippet = (embedUrl: string): string => `<script src="${embedUrl}" async></script>`;
