import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The JavaScript of a package the engine hands out (gateways/<name>): the file the engine's build
 * wrote next to the bundled engine (`builtFile`, beside this module once bundled), or, for an engine
 * run from source, the package built with esbuild (a development dependency) on first use. The
 * answer is kept; a failed attempt is tried again next time.
 */
export function packagedCode(
  builtFile: string,
  entry: string,
  output: { platform: 'node' | 'neutral'; format: 'esm' | 'cjs'; target: string },
): () => Promise<string> {
  let built: Promise<string> | undefined;
  return () => {
    built ??= readFile(new URL(`./${builtFile}`, import.meta.url), 'utf8').catch(async () => {
      const { build } = await import('esbuild');
      const result = await build({
        entryPoints: [fileURLToPath(new URL(`../../${entry}`, import.meta.url))],
        bundle: true,
        ...output,
        write: false,
        logLevel: 'silent',
      });
      const file = result.outputFiles[0];
      if (file === undefined) throw new Error(`esbuild wrote no output for ${entry}`);
      return file.text;
    });
    built.catch(() => (built = undefined));
    return built;
  };
}
