import type { Heading, Nodes, Parent, Root, RootContent } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkMdx from 'remark-mdx';
import remarkParse from 'remark-parse';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { parse as parseYaml } from 'yaml';
import type { DocFile } from './doc-file';

const markdownParser = unified().use(remarkParse).use(remarkFrontmatter, ['yaml', 'toml']).use(remarkGfm).freeze();
const mdxParser = markdownParser().use(remarkMdx).freeze();
// ATX headings and fenced code only: the chunker reads sections and code by those forms.
const markdownWriter = unified()
  .use(remarkStringify, { bullet: '-', fences: true, rule: '-', emphasis: '_', listItemIndent: 'one' })
  .use(remarkGfm)
  .freeze();

/**
 * A Markdown or MDX file as plain Markdown for the chunker: front matter, MDX imports and exports dropped, MDX
 * components replaced by their content, expressions by their text when they are a string, setext headings and
 * indented code rewritten as ATX headings and fenced code. Its title is the first top-level heading, else the front
 * matter's `title`, else the first heading.
 */
export function convertMarkdownFile(source: string, options: { mdx: boolean }): DocFile {
  const tree = parseMarkdown(source, options.mdx);
  const frontMatterTitle = readFrontMatterTitle(tree);
  const root: Root = { type: 'root', children: simplifyChildren(tree.children) as RootContent[] };
  const headings = root.children.filter((node): node is Heading => node.type === 'heading');
  const title =
    textOf(headings.find((heading) => heading.depth === 1)) || frontMatterTitle || textOf(headings[0]) || '';
  const markdown = root.children.length === 0 ? '' : String(markdownWriter.stringify(root)).trim();
  return { title, markdown };
}

/** MDX is strict (a stray `<` or `{` is a syntax error): a file that is not valid MDX is read as Markdown instead. */
function parseMarkdown(source: string, mdx: boolean): Root {
  if (mdx) {
    try {
      return mdxParser.runSync(mdxParser.parse(source)) as Root;
    } catch {
      // falls through to Markdown
    }
  }
  return markdownParser.runSync(markdownParser.parse(source)) as Root;
}

function readFrontMatterTitle(tree: Root): string {
  // mdast's types know YAML front matter only; remark-frontmatter also reads TOML's.
  const node = tree.children[0] as { type: string; value?: string } | undefined;
  if (node?.type === 'yaml') {
    try {
      const data: unknown = parseYaml(node.value ?? '');
      const title = (data as { title?: unknown } | null)?.title;
      return typeof title === 'string' || typeof title === 'number' ? String(title).trim() : '';
    } catch {
      return '';
    }
  }
  if (node?.type === 'toml') return /^title\s*=\s*["']([^"'\n]*)["']/m.exec(node.value ?? '')?.[1]?.trim() ?? '';
  return '';
}

/** MDX and front-matter nodes out of `children`, recursively: components give way to their content. */
function simplifyChildren(children: readonly Nodes[]): Nodes[] {
  const kept: Nodes[] = [];
  for (const node of children) {
    if ((node.type as string) === 'toml') continue;
    switch (node.type) {
      case 'yaml':
      case 'mdxjsEsm':
        break;
      case 'mdxJsxFlowElement':
      case 'mdxJsxTextElement':
        kept.push(...simplifyChildren(node.children));
        break;
      case 'mdxFlowExpression':
      case 'mdxTextExpression': {
        const text = readStringExpression(node.value);
        if (text === null) break;
        kept.push(node.type === 'mdxTextExpression' ? { type: 'text', value: text } : paragraphOf(text));
        break;
      }
      case 'html':
        if (!/^\s*<!--[\s\S]*-->\s*$/.test(node.value)) kept.push(node);
        break;
      default:
        if ('children' in node) (node as Parent).children = simplifyChildren(node.children) as Parent['children'];
        kept.push(node);
    }
  }
  return kept;
}

function paragraphOf(text: string): Nodes {
  return { type: 'paragraph', children: [{ type: 'text', value: text }] };
}

/** The text of an expression that is a string literal (`{"text"}`, `{'text'}`, `` {`text`} ``); null for code. */
function readStringExpression(expression: string): string | null {
  const match = /^\s*(["'`])((?:(?!\1)[^\\]|\\.)*)\1\s*$/s.exec(expression);
  if (!match || (match[1] === '`' && match[2]!.includes('${'))) return null;
  return match[2]!.replace(/\\(.)/g, '$1');
}

function textOf(node: Nodes | undefined): string {
  if (!node) return '';
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(textOf).join('').trim();
  return '';
}
