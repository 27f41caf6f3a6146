import type { Page } from 'playwright-core';

/** The signed-in frame: side navigation, language and account menus. */
export class ShellPage {
  constructor(readonly page: Page) {}

  sideNav() {
    return this.page.locator('nav.bx--side-nav__navigation');
  }

  sideNavTexts(): Promise<string[]> {
    return this.page.locator('.bx--side-nav__navigation').allInnerTexts();
  }

  async openAccountMenu(): Promise<void> {
    await this.page.getByRole('button', { name: /Account menu|账号菜单/ }).click();
  }

  async signOut(): Promise<void> {
    await this.openAccountMenu();
    await this.page.getByText('Sign out', { exact: true }).click();
  }

  async chooseLanguage(name: 'English' | '简体中文'): Promise<void> {
    await this.page.getByRole('button', { name: /^(Language|语言)$/ }).click();
    await this.page.getByText(name, { exact: true }).click();
  }

  async openMenu(parent: string, child: string): Promise<void> {
    const nav = this.sideNav();
    const menu = nav.getByRole('button', { name: parent, exact: true });
    if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
    await nav.getByRole('link', { name: child, exact: true }).click();
  }
}
