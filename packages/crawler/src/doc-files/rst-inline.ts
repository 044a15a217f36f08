/** Roles whose text is code (`:func:`, `:py:class:`, …); other roles (`:ref:`, `:doc:`, `:term:`) read as plain text. */
const CODE_ROLES =
  /^(?:\w+:)?(?:func|meth|class|mod|attr|data|obj|exc|const|member|type|macro|var|envvar|option|command|file|program|samp|kbd|code|literal)$/;

/**
 * reStructuredText inline markup as Markdown: ``literal`` → `literal`, `text <url>`_ → [text](url), roles → their
 * text (as code for code roles, without a `text <target>` form's target), `target`_ references → their text. Emphasis
 * and strong emphasis are written alike in both.
 */
export function convertRstInline(text: string): string {
  return text
    .replace(/``(.+?)``/g, (_, code: string) => `\`${code}\``)
    .replace(/`([^`<]+?)\s*<([^>`]+)>`__?/g, (_, label: string, url: string) =>
      /^[a-z][a-z+.-]*:/i.test(url) ? `[${label}](${url})` : label,
    )
    .replace(/:([\w:+-]+):`([^`]+)`/g, (_, role: string, body: string) => {
      const target = /^(.*?)\s*<[^>]+>$/.exec(body);
      const shown = (target ? target[1]! : body).replace(/^[~!]/, '');
      return CODE_ROLES.test(role) ? `\`${shown}\`` : shown;
    })
    .replace(/`([^`]+)`__?/g, '$1');
}
