/**
 * The development provider's HTML: the sign-in form and the sign-out confirmation. No inline
 * script or style (the pages are served under a CSP that forbids both); one small stylesheet.
 */

export const STYLESHEET = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1f24}
main{max-width:24rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin:0 0 .5rem}p.note{color:#4a5360;font-size:.9rem}
label{display:block;margin-top:1rem;font-weight:600}
input{box-sizing:border-box;width:100%;padding:.55rem;margin-top:.25rem;border:1px solid #8a94a3;border-radius:4px;font:inherit}
input:focus,button:focus{outline:3px solid #2b6cb0;outline-offset:1px}
button{margin-top:1.5rem;width:100%;padding:.65rem;border:0;border-radius:4px;background:#1f4f8f;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#e2e6ec;color:#1b1f24;margin-top:.75rem}
.error{margin-top:1rem;padding:.6rem;border-left:4px solid #b3261e;background:#fdecea;color:#5f1410}
`;

export const STYLESHEET_PATH = '/dev-idp/style.css';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function signInPage(opts: { action: string; login?: string; error?: string; reauth: boolean }): string {
  const heading = opts.reauth ? 'Confirm it is you' : 'Sign in';
  return page(
    `${heading} — development identity provider`,
    `<h1>${heading}</h1>
<p class="note">Development identity provider. ${opts.reauth ? 'Enter your password again to continue.' : 'Use the login and password you were given.'}</p>
${opts.error ? `<p class="error" role="alert" id="signin-error">${escapeHtml(opts.error)}</p>` : ''}
<form method="post" action="${escapeHtml(opts.action)}"${opts.error ? ' aria-describedby="signin-error"' : ''}>
<label for="login">Login</label>
<input id="login" name="login" type="text" autocomplete="username" required maxlength="200" value="${escapeHtml(opts.login ?? '')}"${opts.login ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1000"${opts.login ? ' autofocus' : ''}>
<button type="submit">${opts.reauth ? 'Confirm' : 'Sign in'}</button>
</form>`,
  );
}

export function signOutPage(form: string, host: string): string {
  return page(
    'Sign out — development identity provider',
    `<h1>Sign out</h1>
<p class="note">Sign out of the development identity provider at ${escapeHtml(host)}?</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>
<button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>`,
  );
}

export function messagePage(title: string, text: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>`);
}
