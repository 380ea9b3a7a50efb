// Applies the remembered theme before the first paint (a separate file: the CSP allows no inline script).
try {
  if (localStorage.getItem('pipdesk.theme') === 'light') document.documentElement.dataset.theme = 'light';
} catch {
  // Storage blocked: the dark default stays.
}
