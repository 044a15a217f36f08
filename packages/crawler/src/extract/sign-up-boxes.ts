import type { AnyNode, Element } from 'domhandler';
import { isElementNode, removeNodes } from './dom-nodes';
import { measureTextAmounts, type TextAmount } from './text-amounts';

/**
 * A sign-up box inside an article: a field for the reader's email address (`<input type="email">`) with the lines
 * around it inviting them to subscribe, promising what the newsletter brings, the legal small print and the thanks
 * shown once subscribed ("Sign up to our newsletter…", "By entering your email address you agree…", "Awesome, you're
 * subscribed!"). Told by the field, not by names: the box is the largest block around it that is still a widget's size.
 * Chrome removal takes the form and its field but leaves these lines, as text of the story: the box goes before it.
 */

/** The box holds this much text at most (characters that are not white space): an invitation, not a section. */
const MAX_BOX_CHARS = 500;

/** Removes the sign-up boxes under `top`, an article's content; called before chrome removal takes their fields. */
export function removeSignUpBoxes(top: Element): void {
  const fields: Element[] = [];
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    if (element.name === 'input' && (element.attribs.type ?? '').toLowerCase() === 'email') fields.push(element);
    for (const child of element.children) if (isElementNode(child)) stack.push(child);
  }
  if (fields.length === 0) return;
  const amounts = measureTextAmounts(top);
  const boxes = new Set<Element>();
  for (const field of fields) {
    const box = widestWidget(field, top, amounts);
    if (box) boxes.add(box);
  }
  removeNodes([...boxes]);
}

function widestWidget(field: Element, top: Element, amounts: Map<AnyNode, TextAmount>): Element | null {
  let box: Element | null = null;
  for (let parent = field.parent; parent && parent !== top && isElementNode(parent); parent = parent.parent) {
    if ((amounts.get(parent)?.chars ?? 0) > MAX_BOX_CHARS) break;
    box = parent;
  }
  return box;
}
