import { describe, expect, it } from 'vitest';
import { DEFAULT_RELOAD_CONTENT, probeScriptTag, reloadPage } from '#engine/probe';

describe('reload page', () => {
  it('puts the probe before the last </body> of custom content', () => {
    const html = reloadPage({
      content: '<html><body><p>Wait</p></BODY></html>',
      probeScriptUrl: '/rampart/probe.js?m=reload',
    });
    expect(html).toBe('<html><body><p>Wait</p><script src="/rampart/probe.js?m=reload" async></script></BODY></html>');
  });

  it('appends the probe to content without a body element', () => {
    expect(reloadPage({ content: 'Please wait', probeScriptUrl: '/p.js' })).toBe(
      'Please wait<script src="/p.js" async></script>',
    );
  });

  it('uses the default content when the site has none', () => {
    const html = reloadPage({ content: '', probeScriptUrl: '/p.js' });
    expect(html).toContain('Checking your browser');
    expect(html.length).toBeGreaterThan(DEFAULT_RELOAD_CONTENT.length);
  });

  it('inlines a script so that it cannot close its element early', () => {
    const html = reloadPage({ content: '<body></body>', inlineScript: 'var a = "</script>";' });
    expect(html).toBe('<body><script>var a = "<\\/script>";</script></body>');
  });
});

describe('page-mode snippet', () => {
  it('escapes the URL and carries a nonce', () => {
    expect(probeScriptTag('/p.js?a=1&b="2"', { nonce: 'n1' })).toBe(
      '<script src="/p.js?a=1&amp;b=&quot;2&quot;" async nonce="n1"></script>',
    );
  });
});
