// Markdown for the answer text. Raw HTML in the model's text is shown as text,
// never parsed: the answer is data, and the webview's CSP is the second wall.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

// Only web links and anchors: no javascript:, file: or command: URIs from the model.
const SAFE_LINK = /^(https?:|mailto:|#)/i;
md.validateLink = (url: string): boolean => SAFE_LINK.test(url.trim());

export function renderMarkdown(text: string): string {
  return md.render(text);
}
