// Driving the VS Code workbench (code-server in Chromium) with Playwright.

/** Runs a command from the palette by its title, e.g. "agentls: New Session". */
export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  await pick(page, title);
}

/** Clicks the quick pick row labelled exactly `label` (not one that merely contains it). */
export async function pick(page, label) {
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.getByText(label, { exact: true }) }).first();
  await row.waitFor({ state: 'visible' });
  await row.click();
}

/** The chat view's document: the webview's outer iframe holds the real one. */
export async function chatFrame(page, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if (await frame.locator('#prompt').count()) {
          return frame;
        }
      } catch {
        // a frame that is going away
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error('the agentls chat view did not appear');
}
