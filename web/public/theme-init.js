// Applies the theme before the first paint (a separate file: the CSP allows no inline script): the
// trader's pick when there is one, else the system's prefers-color-scheme, else dark.
{
  let picked = null;
  try {
    picked = localStorage.getItem('pipdesk.theme');
  } catch {
    // Storage blocked: no pick, the system decides.
  }
  const light =
    picked === 'light' ||
    (picked !== 'dark' && typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: light)').matches);
  document.documentElement.dataset.theme = light ? 'light' : 'dark';
}
