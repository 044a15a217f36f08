import { escapeHtml } from './escape-html';

/** The login form's script, served as a file: the Content-Security-Policy allows no inline script. */
export const ADMIN_LOGIN_SCRIPT_PATH = '/admin/login.js';
export const ADMIN_LOGIN_SCRIPT = `document.getElementById('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const res = await fetch('/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: form.get('email'), password: form.get('password') }),
  });
  if (res.ok) { location.reload(); return; }
  const body = await res.json().catch(() => ({}));
  document.getElementById('error').textContent = body.error || 'Login failed (' + res.status + ')';
});
`;

/**
 * What a browser gets at /admin/queues without a dashboard session: a 401 page with a login form that posts
 * JSON to /api/auth/login and reloads, so an operator never has to reach for curl.
 */
export function renderAdminLoginPage(reason: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Docshelf · log in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.45rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1.2rem}#error{color:#b00020;min-height:1.5em}p.note{color:#555;font-size:.9rem}
</style></head>
<body>
<h1>Docshelf queues</h1>
<p>${escapeHtml(reason)}. Log in with the dashboard user (<code>ADMIN_EMAIL</code>); API keys are not accepted here.</p>
<form id="login">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
<p id="error" role="alert"></p>
</form>
<p class="note">This posts to <code>POST /api/auth/login</code>, which sets the <code>docshelf_session</code> cookie.</p>
<script src="${ADMIN_LOGIN_SCRIPT_PATH}"></script>
</body></html>`;
}
