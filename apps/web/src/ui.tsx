import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { navigatedInApp } from './router';

/**
 * A page's heading takes focus when the dashboard opens the page, so keyboard and screen-reader users start there
 * (on a page load the browser starts at the top, with the skip link).
 */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (navigatedInApp) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

export function ErrorMessage({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="message error" role="alert">
      {message}
    </p>
  );
}

export function Notice({ message }: { message: string | null }) {
  return (
    <p class="message notice" role="status">
      {message ?? ''}
    </p>
  );
}

/**
 * A confirmation in a modal <dialog>: the browser traps focus, Escape cancels, and focus returns where it was.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <div class="actions">
        <button type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel} autoFocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

export const formatDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never';

/** "84 % (42 of 50)" */
export function shareText(part: number, whole: number): string {
  if (whole === 0) return '–';
  return `${Math.floor((part / whole) * 100)} % (${part} of ${whole})`;
}

/** True for absolute http and https URLs, the only ones the dashboard makes into links. */
export function isWebUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === 'http:' || protocol === 'https:';
}

/**
 * A URL that came from stored data (a chunk's `url`, a library's `sourceUrl`), opened outside the dashboard. Anyone
 * who may ingest chooses it, so only http(s) becomes a link: `javascript:` or `data:` would run in the dashboard's
 * origin when clicked; those, and anything else, are shown as text.
 */
export function ExternalLink({ url }: { url: string }) {
  if (!isWebUrl(url)) return <span class="url-text">{url}</span>;
  return (
    <a href={url} data-external rel="noreferrer">
      {url}
    </a>
  );
}
