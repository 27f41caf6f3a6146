// Electron main process: one instance per user, the engine kept alive by the Supervisor in a
// utilityProcess, one window on the console, a tray with the engine's status. Bundled to
// dist/electron/main.cjs by scripts/build-electron.mjs. Kept thin on purpose: everything that can
// be tested without Electron lives in supervisor.ts.
//
// Security choices (Electron's checklist): the window is sandboxed with context isolation and no
// Node; it may only show the console origin; other http(s) links open in the user's browser; no
// permission is granted; no webviews; the preload exposes one small API.

import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  app,
  BrowserWindow,
  ipcMain,
  Menu,
  nativeImage,
  session,
  shell,
  Tray,
  utilityProcess,
  type WebContents,
} from 'electron';
import { ENGINE_STATE_CHANNEL, GET_ENGINE_STATE_CHANNEL, VERSION_ARGUMENT } from './desktop-api.ts';
import { Supervisor, type EngineProcess, type SupervisorState } from './supervisor.ts';
import { signedByOwnCa } from './ca-trust.ts';
import engineNodeFlags from '../scripts/engine-node-flags.json' with { type: 'json' };

// Relative to the bundle so it works both from the work tree and inside the packaged app.asar.
const ENGINE_ENTRY = path.join(__dirname, '../engine/main.js');
const PRELOAD = path.join(__dirname, 'preload.cjs');

// 16x16 shield; inline so the tray never depends on a resource path that differs per platform.
const TRAY_ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAALUlEQVR4nGNgoAbgT/r3nxw8asDwMoBUgyhKVBSlTKI04zKEJM3ohpClmW4AAOugWRQbInOfAAAAAElFTkSuQmCC';

/** EngineProcess over Electron's utilityProcess (the engine gets Electron's Node without a renderer). */
function forkWithUtilityProcess(entry: string, env: NodeJS.ProcessEnv): EngineProcess {
  const child = utilityProcess.fork(entry, [], {
    env,
    execArgv: engineNodeFlags.flags,
    serviceName: 'Rampart engine',
    stdio: 'inherit',
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  return {
    get pid() {
      return child.pid;
    },
    onMessage(listener) {
      child.on('message', (message: unknown) => listener(message));
    },
    onExit(listener) {
      // utilityProcess reports no signal: a killed engine shows up as a non-zero code.
      child.on('exit', (code) => listener(code, null));
    },
    send(message) {
      if (!exited) child.postMessage(message);
    },
    kill() {
      if (exited) return;
      // child.kill() is SIGTERM, which a hung engine may ignore as it ignored the shutdown message.
      const pid = child.pid;
      if (pid === undefined) child.kill();
      else process.kill(pid, 'SIGKILL');
    },
  };
}

function statusPage(title: string, detail: string): string {
  const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Rampart</title><style>
body{font-family:system-ui,sans-serif;background:#161616;color:#f4f4f4;display:grid;place-items:center;height:100vh;margin:0}
main{max-width:36rem;padding:2rem}h1{font-weight:400;font-size:1.5rem}p{color:#c6c6c6;line-height:1.5;white-space:pre-wrap}
</style></head><body><main><h1>${escape(title)}</h1><p>${escape(detail)}</p></main></body></html>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

function describeState(state: SupervisorState): { status: string; page?: string } {
  switch (state.kind) {
    case 'starting':
      return { status: 'Engine starting…', page: statusPage('Rampart is starting', 'The engine is starting up.') };
    case 'ready':
      return { status: `Engine running (${state.version})` };
    case 'restarting': {
      const seconds = Math.ceil(state.inMs / 1000);
      const detail = `${state.reason}\nRestarting in ${seconds} s (attempt ${state.attempt}).`;
      return { status: `Engine restarting in ${seconds} s`, page: statusPage('The engine stopped', detail) };
    }
    case 'stopping':
      return { status: 'Engine stopping…' };
    case 'stopped':
      return { status: 'Engine stopped' };
    case 'fatal':
      return {
        status: 'Engine could not start',
        page: statusPage(
          'The engine could not start',
          `${state.reason}\n\nCorrect the problem, then choose "Restart engine" in the tray menu or start Rampart again.`,
        ),
      };
  }
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function openExternally(url: string): void {
  // Only web links: a page must not be able to launch file:, smb: or custom-scheme handlers.
  const protocol = URL.canParse(url) ? new URL(url).protocol : '';
  if (protocol === 'http:' || protocol === 'https:') void shell.openExternal(url);
}

/**
 * The CRS release the installer carries (fetched and checked at build time by
 * scripts/fetch-crs-release.ts): resources/crs once packaged, dist/crs in a build tree.
 */
function bundledCrsDir(): string | undefined {
  const places = [path.join(process.resourcesPath, 'crs'), path.join(__dirname, '../crs')];
  return places.find((dir) => existsSync(path.join(dir, 'rules')));
}

function runDesktop(): void {
  process.env.RAMPART_DATA ??= path.join(app.getPath('userData'), 'data');
  const crs = bundledCrsDir();
  if (crs) process.env.RAMPART_CRS_BUNDLED_DIR ??= crs;
  const engineEnv = { ...process.env };

  const supervisor = new Supervisor({ spawn: () => forkWithUtilityProcess(ENGINE_ENTRY, engineEnv) });
  let window: BrowserWindow | undefined;
  let tray: Tray | undefined;
  let consoleOrigin: string | undefined;
  let quitting = false;
  let readyToQuit = false;

  const isConsoleUrl = (url: string): boolean => consoleOrigin !== undefined && originOf(url) === consoleOrigin;

  function showWindow(): void {
    if (window === undefined || window.isDestroyed()) window = createWindow();
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  }

  function createWindow(): BrowserWindow {
    const created = new BrowserWindow({
      width: 1280,
      height: 840,
      title: 'Rampart',
      backgroundColor: '#161616',
      webPreferences: {
        contextIsolation: true,
        nodeIntegration: false,
        sandbox: true,
        preload: PRELOAD,
        additionalArguments: [`${VERSION_ARGUMENT}${app.getVersion()}`],
      },
    });
    // Closing the window leaves the engine protecting traffic; the tray or a second launch brings it back.
    created.on('close', (event) => {
      if (quitting) return;
      event.preventDefault();
      created.hide();
    });
    showState(created, supervisor.state);
    return created;
  }

  function showState(target: BrowserWindow, state: SupervisorState): void {
    let url: string | undefined;
    if (state.kind === 'ready') {
      // Already on the console (say, after a second ready): keep the page the user is working in.
      if (!isConsoleUrl(target.webContents.getURL())) url = state.secureUrl ?? state.consoleUrl;
    } else {
      url = describeState(state).page;
    }
    if (url === undefined) return;
    // A load is aborted when the next state replaces it; only other failures are worth a line.
    target.loadURL(url).catch((error: unknown) => {
      if (!target.isDestroyed() && target.webContents.getURL() !== url) {
        console.error('Rampart: could not load', url.startsWith('data:') ? 'the status page' : url, error);
      }
    });
  }

  function updateTray(state: SupervisorState): void {
    if (tray === undefined) return;
    const { status } = describeState(state);
    tray.setToolTip(`Rampart: ${status}`);
    // Linux only picks up a changed menu when it is set again.
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: status, enabled: false },
        { type: 'separator' },
        { label: 'Open console', click: showWindow },
        ...(state.kind === 'fatal' || state.kind === 'stopped'
          ? [{ label: 'Restart engine', click: () => supervisor.start() }]
          : []),
        { type: 'separator' },
        { label: 'Quit Rampart', click: () => app.quit() },
      ]),
    );
  }

  function guardContents(contents: WebContents): void {
    contents.setWindowOpenHandler(({ url }) => {
      if (isConsoleUrl(url)) return { action: 'allow' };
      openExternally(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (event, url) => {
      if (isConsoleUrl(url)) return;
      event.preventDefault();
      openExternally(url);
    });
    contents.on('will-redirect', (event, url) => {
      if (!isConsoleUrl(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  }

  app.on('second-instance', showWindow);
  // macOS: a click on the dock icon brings the hidden window back.
  app.on('activate', showWindow);
  // A service manager or a terminal stopping the shell should still shut the engine down gracefully.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => app.quit());
  app.on('web-contents-created', (_event, contents) => guardContents(contents));

  // The engine serves the console over TLS with a certificate its own CA signed. The window trusts
  // that CA (by the fingerprint the engine told in its ready message) for the console's origin on
  // a loopback address only, i.e. our own child process; every other certificate error stands.
  app.on('certificate-error', (event, _contents, url, _error, certificate, callback) => {
    const parsed = new URL(url);
    const state = supervisor.state;
    const trusted =
      isConsoleUrl(url) &&
      isLoopback(parsed.hostname) &&
      state.kind === 'ready' &&
      signedByOwnCa(certificate, state.caFingerprint256);
    if (trusted) event.preventDefault();
    callback(trusted);
  });

  // The engine keeps protecting traffic with no window open; only "Quit" ends the application.
  app.on('window-all-closed', () => undefined);

  app.on('before-quit', (event) => {
    quitting = true;
    if (readyToQuit) return;
    event.preventDefault();
    void supervisor.stop().finally(() => {
      readyToQuit = true;
      app.quit();
    });
  });

  supervisor.onState((state) => {
    if (state.kind === 'ready') {
      consoleOrigin = originOf(state.secureUrl ?? state.consoleUrl);
    }
    updateTray(state);
    if (window !== undefined && !window.isDestroyed() && !quitting) {
      window.webContents.send(ENGINE_STATE_CHANNEL, state);
      showState(window, state);
    }
  });

  ipcMain.handle(GET_ENGINE_STATE_CHANNEL, () => supervisor.state);

  void app.whenReady().then(() => {
    // Nothing the console does needs a browser permission (camera, notifications, geolocation...).
    session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    session.defaultSession.setPermissionCheckHandler(
      // Copying an API key or a rule id to the clipboard is the one capability the console uses.
      (_contents, permission, requestingOrigin) =>
        permission === 'clipboard-sanitized-write' && requestingOrigin === consoleOrigin,
    );

    tray = new Tray(nativeImage.createFromDataURL(TRAY_ICON));
    tray.on('click', showWindow);
    updateTray(supervisor.state);
    window = createWindow();
    supervisor.start();
  });
}

// A second launch only focuses the running instance: two engines would fight over the same ports and data.
if (app.requestSingleInstanceLock()) {
  runDesktop();
} else {
  app.quit();
}
