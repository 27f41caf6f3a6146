/**
 * The catalogue of automation signs the probe (and the report endpoint) can name. A STRONG sign
 * alone makes a bot; WEAK signs occur on real machines too (virtual desktops without a GPU, kiosk
 * windows, privacy settings) and only count together.
 */
export const BOT_TYPES = ['webdriver', 'headless', 'automation_global'] as const;
export type ClientBotType = (typeof BOT_TYPES)[number];

interface SignInfo {
  readonly strength: 'strong' | 'weak';
  /** The bot family a strong sign reports as client_bot_type. */
  readonly family: ClientBotType | null;
}

const strong = (family: ClientBotType): SignInfo => ({ strength: 'strong', family });
const weak: SignInfo = { strength: 'weak', family: null };

/** Ordered by priority: when several strong signs are present, the first gives the bot type. */
export const SIGNS = {
  // navigator.webdriver === true (WebDriver, chromedriver, Playwright, Puppeteer, Selenium)
  webdriver: strong('webdriver'),
  // chromedriver's injected cdc_ / $cdc_ keys, Selenium's document and documentElement keys
  chromedriver_keys: strong('webdriver'),
  selenium_keys: strong('webdriver'),
  // HeadlessChrome, PhantomJS, SlimerJS, HtmlUnit ... in navigator.userAgent or the request header
  headless_ua: strong('headless'),
  phantom_global: strong('automation_global'),
  nightmare_global: strong('automation_global'),
  dom_automation: strong('automation_global'),
  playwright_global: strong('automation_global'),
  puppeteer_stack: strong('automation_global'),
  other_automation_global: strong('automation_global'),

  software_webgl: weak, // SwiftShader, llvmpipe, softpipe, Mesa OffScreen
  outer_size_zero: weak, // outerWidth and outerHeight 0 (old headless)
  no_window_chrome_ui: weak, // outer size equal to inner size: no toolbars, tabs or borders
  no_plugins: weak, // desktop Chrome with navigator.plugins empty
  no_languages: weak, // navigator.languages present but empty
  permissions_inconsistent: weak, // Notification.permission 'denied' while permissions.query says 'prompt'
  missing_window_chrome: weak, // Chrome user agent without window.chrome
  touch_mismatch: weak, // mobile user agent without any touch support
  platform_mismatch: weak, // user agent OS differs from navigator.platform
  ua_mismatch: weak, // navigator.userAgent differs from the User-Agent request header
} as const satisfies Record<string, SignInfo>;

export type SignName = keyof typeof SIGNS;

export const SIGN_NAMES = Object.keys(SIGNS) as SignName[];

export function isSignName(name: string): name is SignName {
  return Object.hasOwn(SIGNS, name);
}

/** User-agent fragments of headless browsers and scripted engines, shared by the probe and the server. */
export const HEADLESS_UA_PATTERN =
  /HeadlessChrome|PhantomJS|SlimerJS|HtmlUnit|Headless|jsdom|Puppeteer|Playwright|Zombie\.js|CasperJS/i;
