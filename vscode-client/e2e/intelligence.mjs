// VS Code's own language support answers the agent: a TypeScript problem and a
// definition, from code-server's built-in TypeScript extension, reach the model
// through agentls/problems and agentls/definition (no typescript-language-server
// is on PATH, and agentls starts none).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { chatFrame } from './lib/workbench.mjs';

export async function intelligenceScenario(page, { record, results, phase, check }) {
  const done = phase("VS Code's own TypeScript problems reach the model");
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible' });
  await page.keyboard.type('shapes.ts');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'shapes.ts' }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.editor-instance .view-lines', { hasText: 'export function area' }).first().waitFor();
  // What the person sees first: VS Code's TypeScript support underlines the bad line.
  await page.locator('.editor-instance .squiggly-error').first().waitFor({ timeout: 90_000 });
  const chat = await chatFrame(page, 30_000);
  await chat.locator('#prompt').fill('What is wrong in shapes.ts?');
  await chat.locator('#prompt').press('Enter');
  await chat.locator('.item.run-end', { hasText: 'completed' }).nth(3).waitFor({ timeout: 60_000 });
  await page.screenshot({ path: path.join(results, 'editor-problems.png') });
  const requests = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const seen = JSON.stringify(requests.at(-1).body.messages);
  check(
    seen.includes("shapes.ts:5: Type 'string' is not assignable to type 'number'. (ts 2322)"),
    "VS Code's TypeScript problem reached the model through agentls/problems",
  );
  check(
    seen.includes('shapes.ts:1: export function area(width: number, height: number): number {'),
    "VS Code's definition reached the model through agentls/definition",
  );
  check(!seen.includes('not checked'), 'agentls needed no language server of its own for shapes.ts');
  done();
}
