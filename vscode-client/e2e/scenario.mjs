// One person's session in the workbench, step by step (README.md, "The
// end-to-end run"). Each step waits for what a person would see; the only
// fixed pauses let an animation settle before a screenshot.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { until } from './lib/processes.mjs';
import { chatFrame, pick, runCommand } from './lib/workbench.mjs';

/** How often the extension started a server, from its log in the user data folder. */
function serverStarts(userData) {
  const logs = path.join(userData, 'logs');
  let count = 0;
  for (const session of readdirSync(logs)) {
    const file = path.join(logs, session, 'exthost1', 'agentls.agentls', 'agentls.log');
    if (existsSync(file)) {
      count += readFileSync(file, 'utf8').split('\n').filter((line) => line.includes('] starting ')).length;
    }
  }
  return count;
}

function modelCalls(record) {
  return readFileSync(record, 'utf8').trim().split('\n').length;
}

/** The badge on the agentls icon of the activity bar: something waits for the person. */
export async function waitingBadge(page) {
  const badge = page.locator('.activitybar .action-item:has(.action-label[aria-label^="agentls"]) .badge-content');
  await badge.waitFor({ timeout: 15_000 });
  return (await badge.innerText()).trim() === '1';
}

export async function scenario(page, { record, userData, workspace, results, phase, check }) {
  let done = phase('open greet.py and the chat');
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible' });
  await page.keyboard.type('greet.py');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'greet.py' }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.editor-instance .view-lines', { hasText: 'def greet' }).first().waitFor();
  await runCommand(page, 'agentls: New Session');
  // A wider side bar, as a person would drag it for a chat.
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  await page.mouse.move(sidebar.x + sidebar.width + 1, sidebar.y + 300);
  await page.mouse.down();
  await page.mouse.move(sidebar.x + 460, sidebar.y + 300, { steps: 5 });
  await page.mouse.up();
  const chat = await chatFrame(page, 30_000);
  await chat.locator('body[data-server="running"] #send:not([disabled])').waitFor({ timeout: 60_000 });
  done();

  done = phase('ask; the edit waits for review beside its diff');
  await chat.locator('#prompt').fill('Add a shout() function to greet.py with a test, then check that it still runs.');
  await chat.locator('#prompt').press('Enter');
  const card = chat.locator('.item.edit.proposed', { hasText: 'greet.py' });
  await card.waitFor({ timeout: 60_000 });
  // Where the person looks: the diff opens by itself, with Apply and Reject in its title bar.
  await page.locator('.tabs-container .tab', { hasText: 'Review: edit greet.py' }).waitFor({ timeout: 15_000 });
  await page.locator('.monaco-diff-editor .line-insert').first().waitFor({ timeout: 15_000 });
  await page.locator('.editor-actions .action-label[aria-label="Apply the Edit"]').waitFor({ timeout: 15_000 });
  await chat.locator('#activity.waiting', { hasText: 'review the edit to greet.py' }).waitFor();
  check(await waitingBadge(page), 'the agentls icon in the activity bar counts the edit waiting for the person');
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(results, 'diff-review.png') });
  done();

  done = phase('Apply in the Refactor Preview with nothing ticked is not a no');
  const preview = page.locator('.bulk-edit-panel');
  await card.getByRole('button', { name: 'Pick changes…' }).click();
  const boxes = preview.locator('input.edit-checkbox');
  await boxes.first().waitFor({ timeout: 30_000 });
  check((await boxes.count()) === 2 && !(await boxes.nth(1).isChecked()), 'the preview lists the hunk, unticked until the person ticks it');
  await preview.getByRole('button', { name: 'Apply' }).click();
  await card.locator('.hint', { hasText: 'Nothing was applied' }).waitFor({ timeout: 15_000 });
  check(!readFileSync(path.join(workspace, 'greet.py'), 'utf8').includes('def shout'), 'nothing was applied to greet.py');
  check(modelCalls(record) === 2, 'the server heard no answer: the edit still waits, the model was not asked again');
  await page.screenshot({ path: path.join(results, 'nothing-picked.png') });
  done();

  done = phase('pick the hunk in the preview and apply it there');
  await card.getByRole('button', { name: 'Pick changes…' }).click();
  await boxes.nth(1).waitFor({ timeout: 30_000 });
  await boxes.nth(1).check();
  await preview.getByRole('button', { name: 'Apply' }).click();
  await chat.locator('.item.edit.applied', { hasText: 'greet.py' }).waitFor({ timeout: 30_000 });
  await until('greet.py on disk with the edit', () => readFileSync(path.join(workspace, 'greet.py'), 'utf8').includes('def shout'), 15_000);
  check(true, 'the ticked hunk is in greet.py on disk');
  await page.locator('.tabs-container .tab', { hasText: 'Review: edit greet.py' }).waitFor({ state: 'detached', timeout: 15_000 });
  check(true, 'the review\'s diff closed once the edit was applied');
  done();

  done = phase('accept the new file with Apply in the diff\'s title bar');
  const second = chat.locator('.item.edit.proposed', { hasText: 'test_greet.py' });
  await second.waitFor({ timeout: 30_000 });
  await page.locator('.tabs-container .tab', { hasText: 'Review: create test_greet.py' }).waitFor({ timeout: 15_000 });
  await page.locator('.editor-actions .action-label[aria-label="Apply the Edit"]').click();
  await chat.locator('.item.edit.applied', { hasText: 'test_greet.py' }).waitFor({ timeout: 30_000 });
  await until('test_greet.py on disk', () => existsSync(path.join(workspace, 'test_greet.py')), 15_000);
  check(readFileSync(path.join(workspace, 'test_greet.py'), 'utf8').includes('def test_shout'), 'the new file is on disk after Apply');
  done();

  done = phase('approve the command in the modal dialog');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 30_000 });
  check((await dialog.innerText()).includes("python3 -c 'from greet import shout; print(shout(\"VS Code\"))'"), 'the modal shows the whole command');
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(results, 'approval.png') });
  await dialog.getByRole('button', { name: 'Allow once' }).click();
  done();

  done = phase('the answer');
  await chat.locator('.item.run-end').waitFor({ timeout: 60_000 });
  await chat.locator('.item.answer h2', { hasText: 'Done' }).waitFor();
  // Keyboard: a tool row opens with Enter and shows the first line of its result.
  const commandRow = chat.locator('.item.tool', { hasText: 'run_command' });
  await commandRow.locator('summary').focus();
  await commandRow.locator('summary').press('Enter');
  check(await commandRow.evaluate((row) => row.open && row.querySelector('pre').textContent.includes('HELLO, VS CODE!')), 'a tool row opens from the keyboard and shows the result');
  await chat.locator('#log').evaluate((log) => (log.scrollTop = log.scrollHeight));
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(results, 'chat.png') });
  await page.locator('.part.sidebar').screenshot({ path: path.join(results, 'chat-view.png') });
  const tools = await chat.locator('.item.tool').evaluateAll((rows) => rows.map((row) => row.className));
  check(tools.length === 4 && tools.every((c) => c.includes('ok')), `four tool calls, all done (${tools.join(' | ')})`);
  check((await chat.locator('.item.run-end').innerText()).includes('completed'), 'the run completed');
  check((await chat.locator('.item.approval .outcome').innerText()).includes('Allowed once'), 'the chat mirrors the approval');
  // Theme aware: the same view in a light theme.
  await runCommand(page, 'Preferences: Color Theme');
  await page.keyboard.type('Light Modern');
  await pick(page, 'Light Modern');
  await page.locator('.monaco-workbench.vs').waitFor({ timeout: 15_000 });
  await page.waitForTimeout(800);
  await page.locator('.part.sidebar').screenshot({ path: path.join(results, 'chat-view-light.png') });
  const status = await page.locator('.statusbar-item', { hasText: 'agentls' }).first().innerText();
  check(/tokens · \$\d/.test(status), `the status bar shows tokens and cost (${status.trim()})`);
  const requests = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  check(requests.length === 5, 'the model was called five times for the first ask');
  check(JSON.stringify(requests[4].body.messages).includes('HELLO, VS CODE!'), 'the approved command imported what the edit added (so the edit was on disk), and its output reached the model');
  done();

  done = phase('continue the session, then cancel from the status bar');
  await chat.locator('#prompt').fill('Now count slowly.');
  await chat.locator('#prompt').press('Enter');
  await chat.locator('.item.answer', { hasText: 'Counting slowly' }).waitFor({ timeout: 30_000 });
  // The input stays open during the run: what is sent now goes to the running agent.
  check((await chat.locator('#send').innerText()).trim() === 'Tell', 'the chat input is open during the run (Tell)');
  await chat.locator('#prompt').fill('Count to three only.');
  await chat.locator('#prompt').press('Enter');
  await chat.locator('.item.user.steer.queued', { hasText: 'Count to three only.' }).waitFor({ timeout: 15_000 });
  check(true, 'a message written during the run was queued for it (agentls.steer)');
  const item = page.locator('.statusbar-item', { hasText: 'agentls: running' }).first();
  await item.waitFor();
  await item.click();
  await chat.locator('.item.run-end.stopped', { hasText: 'aborted' }).waitFor({ timeout: 30_000 });
  await chat.locator('.item.user.steer.not_delivered', { hasText: 'Count to three only.' }).waitFor({ timeout: 15_000 });
  check(true, 'cancel ended the run at once; the queued message says it was not delivered');
  const continued = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line)).at(-1);
  check(JSON.stringify(continued.body.messages).includes('Add a shout()'), 'the second ask continued the same session');
  done();

  done = phase('sessions, transcript, undo, restart');
  await runCommand(page, 'agentls: Show Sessions');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Add a shout() function' }).first().waitFor();
  await page.keyboard.press('Escape');
  await runCommand(page, 'agentls: Open Transcript');
  await page.locator('.tabs-container .tab', { hasText: '.md' }).first().waitFor({ timeout: 15_000 });
  check(true, 'the transcript opened in an editor');
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>agentls: ');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'agentls: Restart Server' }).first().waitFor();
  const offered = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
  check(offered.some((row) => row.includes('Undo Last Ask')), 'Undo Last Ask is offered: the server advertises agentls.undo');
  await page.keyboard.press('Escape');
  await runCommand(page, 'agentls: Undo Last Ask');
  const undone = await chat.locator('.item.notice', { hasText: /Undid |Undo of / }).first();
  await undone.waitFor({ timeout: 30_000 });
  console.log(`[e2e] undo said: ${await undone.innerText()}`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(results, 'undo.png') });
  const starts = () => serverStarts(userData);
  const before = starts();
  await runCommand(page, 'agentls: Restart Server');
  await until('a new server process', () => starts() > before, 30_000);
  await chat.locator('body[data-server="running"] #send:not([disabled])').waitFor({ timeout: 60_000 });
  check(true, 'the server restarted');
  done();

  done = phase('settings apply live: plan mode');
  await runCommand(page, 'Preferences: Open User Settings (JSON)');
  const json = page.locator('.editor-instance .monaco-editor', { hasText: 'agentls.model' }).first();
  await json.waitFor({ timeout: 15_000 });
  await json.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowUp'); // onto the last setting, before the closing brace
  await page.keyboard.press('End');
  await page.keyboard.insertText(',\n"agentls.mode": "plan"');
  await page.keyboard.press('Control+S');
  await page.locator('.tabs-container .tab.dirty').waitFor({ state: 'detached', timeout: 15_000 });
  done();

  done = phase('ask about a selection, in the session resumed by the new server');
  await page.locator('.tabs-container .tab', { hasText: 'greet.py' }).first().click();
  await page.locator('.editor-instance .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  await runCommand(page, 'agentls: Ask About Selection');
  const question = page.locator('.quick-input-widget input');
  await question.waitFor({ state: 'visible' });
  await question.fill('What does this do?');
  await question.press('Enter');
  await chat.locator('.item.user', { hasText: 'What does this do?' }).locator('.context', { hasText: 'greet.py:1-2' }).waitFor({ timeout: 30_000 });
  await chat.locator('.item.run-end', { hasText: 'completed' }).nth(1).waitFor({ timeout: 30_000 });
  const asked = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line)).at(-1);
  const sent = JSON.stringify(asked.body.messages);
  check(sent.includes('From greet.py, lines 1-2') && sent.includes('Add a shout()'), 'the selection went with the prompt, in the resumed session');
  const shown = asked.body.tools.map((tool) => tool.name);
  check(!shown.includes('edit_file') && !shown.includes('run_command') && shown.includes('read_file'), `the live mode setting reached the server: plan mode shows ${shown.join(', ')}`);
  done();

  done = phase('edit the last prompt and ask again: a rewind to it, confirmed, then the new text');
  const earlier = chat.locator('.item.user', { hasText: 'What does this do?' });
  await earlier.getByRole('button', { name: 'Edit' }).click();
  const editing = chat.locator('.item.user textarea.edit-prompt'); // in place of the prompt's text
  await editing.waitFor();
  await editing.fill('Explain greet() and shout() in one line.');
  await editing.press('Enter');
  const confirm = page.locator('.monaco-dialog-box');
  await confirm.waitFor({ timeout: 30_000 });
  const said = await confirm.innerText();
  check(said.includes('Edit ask 3 and ask again?') && said.includes('Takes back ask 3 “What does this do?”'), `the confirmation names the ask it takes back (${said.replace(/\s+/g, ' ').trim()})`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(results, 'edit-and-ask-again.png') });
  await confirm.getByRole('button', { name: 'Rewind and Ask' }).click();
  await chat.locator('.item.user.rewound', { hasText: 'What does this do?' }).waitFor({ timeout: 30_000 });
  await chat.locator('.item.run-end', { hasText: 'completed' }).nth(2).waitFor({ timeout: 60_000 });
  const again = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line)).at(-1);
  const resent = JSON.stringify(again.body.messages);
  check(resent.includes('Explain greet() and shout() in one line.') && resent.includes('Add a shout()'), 'the new text went in the same session');
  check(!resent.includes('What does this do?') && !resent.includes('greet.py, lines 1-2'), 'the ask taken back is no longer in what the model sees');
  done();
}
