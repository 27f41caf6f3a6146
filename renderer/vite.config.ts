import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Carbon's prebuilt CSS declares IBM Plex with @font-face rules that load from IBM's CDN. The console
 * must never leave its origin, so those rules are dropped here and the fonts come from the locally
 * installed @fontsource packages (imported in src/styles/fonts.ts).
 */
function stripRemoteFontFaces(): Plugin {
  return {
    name: 'rampart:strip-remote-font-faces',
    enforce: 'pre',
    transform(code, id) {
      if (!/carbon-components-svelte[\\/]css[\\/].+\.css$/.test(id.split('?')[0] ?? '')) return null;
      return { code: code.replace(/@font-face\s*\{[^}]*\}/g, ''), map: null };
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [stripRemoteFontFaces(), svelte()],
  resolve: {
    // Tiers as GitButler names them; also keeps the views free of long relative paths.
    alias: {
      $lib: fileURLToPath(new URL('src/lib', import.meta.url)),
      $components: fileURLToPath(new URL('src/components', import.meta.url)),
      $views: fileURLToPath(new URL('src/views', import.meta.url)),
      $i18n: fileURLToPath(new URL('i18n', import.meta.url)),
    },
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2048,
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:9080', changeOrigin: false },
    },
  },
});
