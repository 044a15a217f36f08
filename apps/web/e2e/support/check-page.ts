import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** Every page's screenshots, at the two widths the dashboard is made for (gitignored but for the README's two). */
export const SCREENSHOTS = path.resolve(__dirname, '../screenshots');
export const WIDTHS = [360, 1440] as const;

/**
 * What every page must pass: axe-core finds no serious or critical violation at either width, and the page is
 * photographed at both (`<name>-360.png`, `<name>-1440.png`) for people to look at.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const original = page.viewportSize();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 360 ? 780 : 900 });
    const { violations } = await new AxeBuilder({ page }).analyze();
    const serious = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(serious, `axe on ${name} at ${width} px`).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}
