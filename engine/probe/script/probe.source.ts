/**
 * The browser probe, ES3 (IE 8+, Chrome 49+, Firefox 52+, Safari 10+, Edge 44+): no let/const,
 * arrow functions, template strings, getters, trailing commas, Array.prototype.forEach/indexOf,
 * Date.now, addEventListener without an attachEvent fallback, reserved words as property names.
 * JSON is used when present; a small serializer stands in for it. A unit test parses the rendered
 * script with acorn at ecmaVersion 3.
 *
 * `render.ts` replaces the two markers: the config object literal (JSON) and the SHA-256 source.
 * Sign names must be names of `signs.ts` (a unit test checks that every quoted sign exists).
 */
export const CONFIG_MARKER = '/*@RAMPART_CONFIG@*/null';
export const SHA256_MARKER = '/*@RAMPART_SHA256@*/';

export const PROBE_SOURCE = String.raw`(function (win) {
var doc = win.document;
var CFG = /*@RAMPART_CONFIG@*/null;
if (!doc || !CFG || win.__rampartProbeRunning) return;
win.__rampartProbeRunning = true;

/*@RAMPART_SHA256@*/

var nav = win.navigator || {};
var UA = String(nav.userAgent || '');
var HEADLESS_UA = /HeadlessChrome|PhantomJS|SlimerJS|HtmlUnit|Headless|jsdom|Puppeteer|Playwright|Zombie\.js|CasperJS/i;
var MOBILE_UA = /Mobi|Android|iPhone|iPad|iPod/;
var IS_CHROME = /Chrome\/\d+/.test(UA) && !/Edge\/|OPR\/|SamsungBrowser|CriOS|; wv\)/.test(UA);
var SOFTWARE_GL = /SwiftShader|llvmpipe|softpipe|Mesa OffScreen|Software Rasterizer/i;
var SELENIUM_KEYS = ['__webdriver_evaluate', '__selenium_evaluate', '__webdriver_script_function',
  '__webdriver_script_func', '__webdriver_script_fn', '__fxdriver_evaluate', '__driver_unwrapped',
  '__webdriver_unwrapped', '__driver_evaluate', '__selenium_unwrapped', '__fxdriver_unwrapped',
  '__lastWatirAlert', '__lastWatirConfirm', '__lastWatirPrompt', '_Selenium_IDE_Recorder',
  '_selenium', 'calledSelenium', '__webdriverFunc', '__webdriver_script_fn'];

function now() {
  return new Date().getTime();
}

function on(target, type, fn) {
  if (!target) return;
  if (target.addEventListener) {
    target.addEventListener(type, fn, true);
  } else if (target.attachEvent) {
    target.attachEvent('on' + type, fn);
  }
}

function store(key, value) {
  try {
    if (value === null) {
      win.sessionStorage.removeItem(key);
    } else {
      win.sessionStorage.setItem(key, value);
    }
  } catch (e) { /* storage disabled: the features that need it degrade */ }
}

function load(key) {
  try {
    return win.sessionStorage.getItem(key);
  } catch (e) {
    return null;
  }
}

function quote(s) {
  return '"' + s.replace(/[\\"\u0000-\u001f\u2028\u2029]/g, function (c) {
    var hex = c.charCodeAt(0).toString(16);
    if (c === '"' || c === '\\') return '\\' + c;
    while (hex.length < 4) hex = '0' + hex;
    return '\\u' + hex;
  }) + '"';
}

function toJson(v) {
  var out, i, k;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number') return isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Object.prototype.toString.call(v) === '[object Array]') {
    out = [];
    for (i = 0; i < v.length; i++) out.push(toJson(v[i]));
    return '[' + out.join(',') + ']';
  }
  out = [];
  for (k in v) {
    if (Object.prototype.hasOwnProperty.call(v, k) && v[k] !== undefined) out.push(quote(k) + ':' + toJson(v[k]));
  }
  return '{' + out.join(',') + '}';
}

function fromJson(text) {
  if (win.JSON && win.JSON.parse) return win.JSON.parse(text);
  /* IE 8 in quirks or IE 7 document mode has no JSON; the text comes from our own endpoint. */
  return eval('(' + text + ')');
}

/* ---- automation signs ---- */

var signs = [];

function add(name) {
  var i;
  for (i = 0; i < signs.length; i++) if (signs[i] === name) return;
  signs.push(name);
}

function ownKeys(obj) {
  var keys = [], k;
  try {
    if (Object.getOwnPropertyNames) return Object.getOwnPropertyNames(obj);
  } catch (e) { /* fall back to enumeration */ }
  try {
    for (k in obj) keys.push(k);
  } catch (e2) { /* IE 8 host objects may refuse enumeration */ }
  return keys;
}

function scanKeys() {
  var keys = ownKeys(win), dkeys = ownKeys(doc), i, k;
  for (i = 0; i < keys.length; i++) {
    k = String(keys[i]);
    if (/^\$?cdc_|^\$wdc_/.test(k)) add('chromedriver_keys');
    if (/^__playwright|^__pw[A-Z_]|^playwright/.test(k)) add('playwright_global');
  }
  for (i = 0; i < dkeys.length; i++) {
    k = String(dkeys[i]);
    if (/^\$?cdc_|^\$wdc_/.test(k)) add('chromedriver_keys');
  }
  for (i = 0; i < SELENIUM_KEYS.length; i++) {
    k = SELENIUM_KEYS[i];
    try {
      if (k in win || k in doc) add('selenium_keys');
    } catch (e) { /* ignore */ }
  }
  try {
    var root = doc.documentElement;
    if (root && (root.getAttribute('webdriver') !== null || root.getAttribute('selenium') !== null || root.getAttribute('driver') !== null)) {
      add('selenium_keys');
    }
  } catch (e3) { /* ignore */ }
}

function webglRenderer() {
  var canvas, gl, ext, renderer = '';
  try {
    canvas = doc.createElement('canvas');
    if (!canvas.getContext) return '';
    gl = canvas.getContext('webgl') || canvas.getContext('experimental-webgl');
    if (!gl) return '';
    ext = gl.getExtension('WEBGL_debug_renderer_info');
    renderer = String(ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    ext = gl.getExtension('WEBGL_lose_context');
    if (ext) ext.loseContext(); /* browsers keep few live contexts: give this one back */
  } catch (e) { /* no WebGL */ }
  return renderer;
}

var glRenderer = '';

function collectSync() {
  var desktop = !MOBILE_UA.test(UA), platform = String(nav.platform || '');
  try { if (nav.webdriver === true) add('webdriver'); } catch (e1) { /* ignore */ }
  if (HEADLESS_UA.test(UA)) add('headless_ua');
  try {
    if (win.callPhantom || win._phantom) add('phantom_global');
    if (win.__nightmare) add('nightmare_global');
    if (win.domAutomation || win.domAutomationController) add('dom_automation');
    if (win.__pwInitScripts || win.__playwright__binding__ || win.playwright) add('playwright_global');
    if (win.awesomium || win.geb || win.Cypress || win.wdioElectron) add('other_automation_global');
    if (win.external && String(win.external).indexOf('Sequentum') >= 0) add('other_automation_global');
  } catch (e2) { /* ignore */ }
  try {
    var stack = String(new Error('probe').stack || '');
    if (stack.indexOf('__puppeteer_evaluation_script__') >= 0 || stack.indexOf('pptr:') >= 0) add('puppeteer_stack');
  } catch (e3) { /* ignore */ }
  scanKeys();

  glRenderer = webglRenderer();
  if (glRenderer && SOFTWARE_GL.test(glRenderer)) add('software_webgl');
  if (typeof win.outerWidth === 'number') {
    if (win.outerWidth === 0 && win.outerHeight === 0) {
      add('outer_size_zero');
    } else if (desktop && win.outerWidth === win.innerWidth && win.outerHeight === win.innerHeight) {
      add('no_window_chrome_ui');
    }
  }
  if (IS_CHROME && desktop && nav.plugins && nav.plugins.length === 0) add('no_plugins');
  if (nav.languages && nav.languages.length === 0) add('no_languages');
  if (IS_CHROME && !win.chrome) add('missing_window_chrome');
  if (!desktop && !('ontouchstart' in win) && !(nav.maxTouchPoints > 0) && !(nav.msMaxTouchPoints > 0)) add('touch_mismatch');
  if (platform) {
    if ((/Windows NT/.test(UA) && !/^Win/.test(platform)) ||
        (/Macintosh/.test(UA) && !/^Mac/.test(platform)) ||
        (/X11; (Linux|Ubuntu|Fedora)/.test(UA) && /^(Win|Mac|iP)/.test(platform)) ||
        (/iPhone|iPod/.test(UA) && !/^(iPhone|iPod|iPad)/.test(platform))) {
      add('platform_mismatch');
    }
  }
}

/* The classic headless inconsistency; asynchronous, so the report waits for it a short while. */
function collectAsync(done) {
  var finished = false;
  function finish() {
    if (finished) return;
    finished = true;
    done();
  }
  try {
    if (win.Notification && nav.permissions && nav.permissions.query && win.Notification.permission === 'denied') {
      nav.permissions.query({ name: 'notifications' }).then(function (status) {
        if (status && status.state === 'prompt') add('permissions_inconsistent');
        finish();
      }, finish);
      setTimeout(finish, CFG.asyncTimeoutMs);
      return;
    }
  } catch (e) { /* ignore */ }
  finish();
}

/* ---- fingerprint ---- */

function canvasHash() {
  var canvas, ctx;
  try {
    canvas = doc.createElement('canvas');
    if (!canvas.getContext) return '';
    canvas.width = 220;
    canvas.height = 30;
    ctx = canvas.getContext('2d');
    if (!ctx) return '';
    ctx.textBaseline = 'top';
    ctx.font = '14px Arial';
    ctx.fillStyle = '#f60';
    ctx.fillRect(120, 1, 62, 20);
    ctx.fillStyle = '#069';
    ctx.fillText('Rampart probe, \u00e9\u4e2d <canvas> 1.0', 2, 15);
    ctx.fillStyle = 'rgba(102, 204, 0, 0.7)';
    ctx.fillText('Rampart probe, \u00e9\u4e2d <canvas> 1.0', 4, 17);
    return rampartSha256Hex(canvas.toDataURL()).substring(0, 16);
  } catch (e) {
    return '';
  }
}

function fingerprint() {
  var scr = win.screen || {}, parts;
  parts = [
    UA,
    String(nav.language || nav.userLanguage || nav.browserLanguage || ''),
    nav.languages && nav.languages.join ? nav.languages.join(',') : '',
    [scr.width, scr.height, scr.colorDepth].join('x'),
    String(new Date().getTimezoneOffset()),
    String(nav.platform || ''),
    String(nav.hardwareConcurrency || ''),
    canvasHash(),
    glRenderer
  ];
  return rampartSha256Hex(parts.join('|')).substring(0, 16);
}

/* ---- proof of work ---- */

function solve(task, done) {
  var prefix, counter = 0, bytes;
  if (!task || !task.challenge || !(task.difficulty > 0)) {
    done(null);
    return;
  }
  prefix = rampartUtf8Bytes(task.challenge + ':');
  function chunk() {
    var end = counter + 1500, digits, j;
    for (; counter < end; counter++) {
      digits = String(counter);
      bytes = prefix.slice(0);
      for (j = 0; j < digits.length; j++) bytes.push(digits.charCodeAt(j));
      if (rampartLeadingZeroBits(rampartSha256Words(bytes)) >= task.difficulty) {
        done({ challenge: task.challenge, counter: counter });
        return;
      }
    }
    setTimeout(chunk, 0); /* let the page breathe between chunks */
  }
  chunk();
}

/* ---- report ---- */

var state = {
  challenge: CFG.pow,
  expiresAt: 0,
  refreshTimer: null,
  busy: false,
  queued: null,
  fp: '',
  ready: false,
  failures: 0
};

function xhr() {
  if (win.XMLHttpRequest) return new win.XMLHttpRequest();
  try {
    return new win.ActiveXObject('Microsoft.XMLHTTP');
  } catch (e) {
    return null;
  }
}

function replaceDocument(html) {
  try {
    doc.open();
    doc.write(html);
    doc.close();
  } catch (e) {
    doc.body.innerHTML = html;
  }
}

function reloadOnce() {
  /* Guard against a reload loop when cookies are refused: at most 3 reloads in 15 s per tab. */
  var raw = load('rampart_reloads'), parts = raw ? raw.split('|') : [], count = 0, first = now();
  if (parts.length === 2 && now() - Number(parts[1]) < 15000) {
    count = Number(parts[0]) || 0;
    first = Number(parts[1]);
  }
  if (count >= 3) return;
  store('rampart_reloads', (count + 1) + '|' + first);
  win.location.reload();
}

function scheduleRefresh(ttlSeconds) {
  if (state.refreshTimer) clearTimeout(state.refreshTimer);
  state.expiresAt = now() + ttlSeconds * 1000;
  state.refreshTimer = setTimeout(function () {
    state.refreshTimer = null;
    report({ event: 'refresh' });
  }, Math.max(1000, Math.floor(ttlSeconds * 1000 * CFG.refreshAt)));
}

function handleResponse(status, text) {
  var body = null;
  try {
    body = text ? fromJson(text) : null;
  } catch (e) { /* not JSON */ }
  if (body && body.next) state.challenge = body.next;
  /* The web SDK (bypass access) monitors only: it never replaces, reloads or blocks the page. */
  if (CFG.mode !== 'sdk' && body && body.blocked && typeof body.html === 'string') {
    replaceDocument(body.html);
    return;
  }
  if (!body || status < 200 || status >= 300) {
    /* network or server trouble: try again later instead of hammering */
    state.failures++;
    if (CFG.mode === 'page' || state.failures < 3) {
      setTimeout(function () { report({ event: 'retry' }); }, Math.min(60000, 2000 * state.failures * state.failures));
    }
    return;
  }
  state.failures = 0;
  if (CFG.mode === 'reload') {
    reloadOnce();
  } else if (CFG.mode === 'page' && body.ttl > 0) {
    scheduleRefresh(body.ttl);
  }
}

function send(payload, done) {
  var req = xhr(), finished = false;
  function finish(status, text) {
    if (finished) return;
    finished = true;
    done(status, text);
  }
  if (!req) {
    finish(0, '');
    return;
  }
  try {
    req.open('POST', CFG.reportUrl, true);
    req.setRequestHeader('Content-Type', 'application/json');
    req.onreadystatechange = function () {
      if (req.readyState === 4) finish(req.status, req.responseText);
    };
    req.send(toJson(payload));
  } catch (e) {
    finish(0, '');
  }
}

function report(extra) {
  if (state.busy || !state.ready) {
    state.queued = merge(state.queued, extra);
    return;
  }
  state.busy = true;
  solve(state.challenge, function (pow) {
    var payload = {
      v: 1,
      mode: CFG.mode,
      event: extra.event,
      signs: signs,
      fp: state.fp,
      ua: UA.substring(0, 1024),
      url: String(win.location.href).substring(0, 2048),
      host: String(win.location.hostname).substring(0, 253)
    };
    if (pow) payload.pow = pow;
    if (CFG.mode === 'sdk') payload.ref = String(doc.referrer || '').substring(0, 2048);
    if (extra.account !== undefined) {
      payload.account = extra.account;
      payload.login_status = extra.login_status;
    }
    if (pow) state.challenge = null; /* single use: the response brings the next one */
    send(payload, function (status, text) {
      var next;
      state.busy = false;
      handleResponse(status, text);
      if (state.queued) {
        next = state.queued;
        state.queued = null;
        report(next);
      }
    });
  });
}

function merge(queued, extra) {
  if (!queued) return extra;
  if (extra.account !== undefined) {
    queued.account = extra.account;
    queued.login_status = extra.login_status;
  }
  return queued;
}

function watchVisibility() {
  function check() {
    if (doc.hidden === true) return;
    if (state.expiresAt && now() >= state.expiresAt - 2000) report({ event: 'visible' });
  }
  on(doc, 'visibilitychange', check);
  on(win, 'focus', check);
  if (!doc.addEventListener) on(doc, 'focusin', check);
}

/* ---- account extraction (web field extraction) ---- */

function query(selector) {
  try {
    return selector && doc.querySelector ? doc.querySelector(selector) : null;
  } catch (e) {
    return null; /* an invalid selector in the site configuration must not break the page */
  }
}

function textOf(el) {
  return String(el.textContent !== undefined ? el.textContent : el.innerText || '');
}

function matches(selector, text) {
  var el = query(selector);
  if (!el) return false;
  return !text || textOf(el).indexOf(text) >= 0;
}

function watchLogin(cfg) {
  var pending = load('rampart_login'), account = '', since = 0, parts, timer;
  if (!cfg || String(win.location.pathname) !== cfg.path) return;
  if (pending) {
    /* a form post navigated back to the login page: keep looking for the outcome */
    parts = pending.split('|');
    since = Number(parts[0]) || 0;
    account = parts.slice(1).join('|');
    if (now() - since > CFG.loginWaitMs) since = 0;
  }
  function remember() {
    var input = query(cfg.input);
    if (input && input.value) account = String(input.value).substring(0, 256);
  }
  function submitted() {
    remember();
    if (!account) return;
    since = now();
    store('rampart_login', since + '|' + account);
  }
  function hookForms() {
    var forms = doc.forms || [], i;
    for (i = 0; i < forms.length; i++) {
      if (!forms[i].__rampartWatched) {
        forms[i].__rampartWatched = true;
        on(forms[i], 'submit', submitted);
      }
    }
  }
  function done(loginStatus) {
    store('rampart_login', null);
    since = 0;
    report({ event: 'login', account: account, login_status: loginStatus });
  }
  function poll() {
    hookForms();
    remember();
    if (!since) return;
    /* Spec 2.3 quirk, kept on purpose: a match of the SUCCESS element writes login_status 2 and
       a match of the FAILURE element writes 1 (the field table reads the other way round). */
    if (cfg.success && matches(cfg.success.selector, cfg.success.text)) {
      done(2);
    } else if (cfg.failure && matches(cfg.failure.selector, cfg.failure.text)) {
      done(1);
    } else if (now() - since > CFG.loginWaitMs) {
      done(0);
    }
  }
  on(doc, 'keydown', function (ev) {
    ev = ev || win.event;
    if (ev && ev.keyCode === 13) submitted();
  });
  on(doc, 'click', function (ev) {
    var t;
    ev = ev || win.event;
    t = ev ? ev.target || ev.srcElement : null;
    if (t && /^(button|submit|image)$/i.test(String(t.type || ''))) submitted();
  });
  hookForms();
  timer = setInterval(poll, 300);
  return timer;
}

/* ---- start ---- */

function start() {
  try {
    collectSync();
  } catch (e) { /* a failing check must never stop the report */ }
  state.fp = fingerprint();
  collectAsync(function () {
    var first = merge(state.queued, { event: 'load' });
    state.queued = null;
    state.ready = true;
    report(first);
  });
  if (CFG.mode === 'page') watchVisibility();
  watchLogin(CFG.account);
}

start();
})(this);
`;
