// Is it working, and does it wait for me? A session with a scripted model
// (e2e/working.json): a failed tool row shows its whole file name, a rejected
// edit stays rejected, a command approval and
// a long command and a slow model turn each show in the chat's activity line,
// the status bar and the activity bar's badge; the cost reads the same in the
// header and the session picker; a run cancelled while its edit waits in the
// Refactor Preview closes the preview and the diff, and applies nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { until } from './lib/processes.mjs';
import { chatFrame, runCommand } from './lib/workbench.mjs';
import { waitingBadge } from './scenario.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);

export async function workingScenario(page, { userData, workspace, results, phase, check }) {
  let done = phase('a scripted model for a new session');
  // Typed into the user settings (still open from the plan-mode step) and saved, as a person does.
  const settingsFile = path.join(userData, 'User', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  const model = `scripted:${path.join(here, 'working.json')}`;
  await page.locator('.tabs-container .tab', { hasText: 'settings.json' }).first().click();
  const json = page.locator('.editor-instance .monaco-editor', { hasText: 'agentls.model' }).first();
  await json.locator('.view-lines').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(JSON.stringify({ ...settings, 'agentls.model': model, 'agentls.mode': 'default' }, null, 2));
  await page.keyboard.press('Control+S');
  await page.locator('.tabs-container .tab.dirty').waitFor({ state: 'detached', timeout: 15_000 });
  await until('the settings on disk', () => readFileSync(settingsFile, 'utf8').includes('scripted:'), 15_000);
  // VS Code tells the server of a changed setting in its own time: the server's own
  // report (agentls: Doctor, run again until it names the model) says when it has it.
  const report = page.locator('.editor-instance .view-lines', { hasText: /agentls\sdoctor/ }).first();
  await until('the server uses the scripted model', async () => {
    await runCommand(page, 'agentls: Doctor');
    await report.waitFor({ timeout: 30_000 });
    return (await report.innerText()).includes('scripted:');
  }, 60_000, 500);
  await runCommand(page, 'agentls: New Session');
  const chat = await chatFrame(page, 30_000);
  const greet = () => readFileSync(path.join(workspace, 'greet.py'), 'utf8');
  const before = greet();
  done();

  done = phase('a real rejection still rejects');
  await chat.locator('#prompt').fill('Make the greeting louder, then build it.');
  await chat.locator('#prompt').press('Enter');
  const card = chat.locator('.item.edit.proposed', { hasText: 'greet.py' });
  await card.waitFor({ timeout: 60_000 });
  // A failed tool row shows the whole file name, why it failed on a line of its own.
  const failed = chat.locator('.item.tool.failed', { hasText: 'read_file' });
  await failed.waitFor();
  const name = failed.locator('.summary');
  const whole = await name.evaluate((element) => element.scrollWidth <= element.clientWidth && element.getClientRects().length > 0);
  check(whole && (await name.innerText()).includes('english_greeting_configuration.py'), 'the failed read_file row shows its whole file name');
  await card.getByRole('button', { name: 'Reject' }).click();
  await chat.locator('.item.edit.rejected', { hasText: 'greet.py' }).waitFor({ timeout: 30_000 });
  check(greet() === before, 'Reject leaves greet.py as it was on disk');
  done();

  done = phase('a waiting approval is obvious');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 30_000 });
  // The model's next turn expected the rejection (the script's `expect`), so it heard the no.
  await chat.locator('#activity.waiting', { hasText: 'allow this command' }).waitFor();
  await page.locator('.statusbar-item', { hasText: 'agentls: approval needed' }).first().waitFor();
  check(await waitingBadge(page), 'the dialog, the chat\'s activity line, the status bar and the badge all say the run waits for the person');
  await page.screenshot({ path: path.join(results, 'approval-waiting.png') });
  await dialog.getByRole('button', { name: 'Allow once' }).click();
  done();

  done = phase('a long command shows as running');
  await chat.locator('#activity.tool', { hasText: 'Running run_command' }).waitFor({ timeout: 30_000 });
  await chat.locator('.item.tool.running', { hasText: 'run_command' }).waitFor();
  await page.locator('.statusbar-item', { hasText: 'agentls: running' }).first().waitFor();
  await chat.locator('#activity .elapsed', { hasText: ' s' }).waitFor({ timeout: 15_000 });
  check(true, 'while the command runs, the chat names it and counts the seconds; the status bar says running');
  await page.locator('.part.sidebar').screenshot({ path: path.join(results, 'working-command.png') });
  writeFileSync(path.join(workspace, 'go'), ''); // the command ends when this file appears
  done();

  done = phase('a slow model turn shows as thinking');
  await chat.locator('.item.tool.ok', { hasText: 'run_command' }).waitFor({ timeout: 30_000 });
  await chat.locator('#activity.thinking', { hasText: 'Thinking' }).waitFor({ timeout: 15_000 });
  await chat.locator('#activity .elapsed', { hasText: ' s' }).waitFor({ timeout: 15_000 });
  check(true, 'while the model takes its time, the chat says Thinking… and counts the seconds');
  await page.locator('.part.sidebar').screenshot({ path: path.join(results, 'working-model.png') });
  await chat.locator('#cancel').click();
  await chat.locator('.item.run-end.stopped', { hasText: 'aborted' }).waitFor({ timeout: 30_000 });
  await chat.locator('#activity').waitFor({ state: 'hidden' });
  done();

  done = phase('one cost for the session: the header and the picker agree');
  await until('the picker listing the session', async () => (await chat.locator('#session option:checked').innerText()).includes('Make the greeting louder'), 15_000);
  const header = (await chat.locator('#usage').innerText()).trim();
  const picked = (await chat.locator('#session option:checked').innerText()).trim();
  check(/tokens$/.test(header) && !picked.includes('$'), `a scripted model has no price, in the header (${header}) and in the picker (${picked})`);
  done();

  done = phase('cancel while the edit waits in the Refactor Preview');
  await chat.locator('#prompt').fill('Try the edit again.');
  await chat.locator('#prompt').press('Enter');
  const again = chat.locator('.item.edit.proposed', { hasText: 'greet.py' });
  await again.waitFor({ timeout: 60_000 });
  await again.getByRole('button', { name: 'Pick changes…' }).click();
  const boxes = page.locator('.bulk-edit-panel input.edit-checkbox');
  await boxes.nth(1).waitFor({ timeout: 30_000 });
  await boxes.nth(1).check(); // ticked, but never applied: the run ends first
  await page.locator('.statusbar-item', { hasText: 'agentls: review needed' }).first().click();
  await chat.locator('.item.edit.rejected', { hasText: 'the run ended first' }).waitFor({ timeout: 30_000 });
  await boxes.first().waitFor({ state: 'detached', timeout: 15_000 });
  await page.locator('.tabs-container .tab', { hasText: 'Review: edit greet.py' }).waitFor({ state: 'detached', timeout: 15_000 });
  check(true, 'the cancelled run\'s preview and diff closed');
  await page.locator('.activitybar .action-item:has(.action-label[aria-label^="agentls"]) .badge-content').waitFor({ state: 'hidden', timeout: 15_000 });
  await page.locator('.tabs-container .tab', { hasText: 'greet.py' }).first().click();
  const buffer = await page.locator('.editor-instance .view-lines', { hasText: 'def greet' }).first().innerText();
  check(greet() === before && !buffer.includes('!!!'), 'nothing of the dead edit reached greet.py, on disk or in its buffer');
  await page.screenshot({ path: path.join(results, 'cancelled-review.png') });
  done();
}
