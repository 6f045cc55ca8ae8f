/**
 * The API reference page's script: Redoc's standalone bundle (served from this site, loaded just
 * before this script) renders the OpenAPI document served beside it. Redoc's own search is off:
 * the site's search covers the operations too.
 */
declare const Redoc: { init(specUrl: string, options: Record<string, unknown>, element: HTMLElement | null): void };

Redoc.init(
  '/openapi.json',
  {
    disableSearch: true,
    hideDownloadButton: false,
    expandResponses: '200,201',
    jsonSampleExpandLevel: 3,
    theme: {
      // Colours that keep text at WCAG AA contrast on Redoc's white and grey panels.
      colors: { primary: { main: '#1f4fa3', light: '#2b5fb8' }, text: { primary: '#1a1a1a', secondary: '#4a4a4a' } },
      typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } },
      sidebar: { width: '260px' },
    },
  },
  document.getElementById('redoc'),
);
