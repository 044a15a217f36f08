import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf, type ApiKey } from '../api';
import { ConfirmDialog, ErrorMessage, formatDate, PageHeading } from '../ui';

export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ name: string; key: string; permissions: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = () =>
    api.keys().then(
      ({ keys }) => setKeys(keys),
      (e: unknown) => setError(messageOf(e)),
    );
  useEffect(() => {
    void load();
  }, []);

  const revoke = async () => {
    if (!revoking) return;
    try {
      await api.revokeKey(revoking.id);
      setNotice(`Key ${revoking.name} was revoked; it no longer works.`);
      await load();
    } catch (e) {
      setError(messageOf(e));
    }
    setRevoking(null);
  };

  return (
    <section>
      <PageHeading>API keys</PageHeading>
      <p>
        Read keys search and read libraries; admin keys also ingest, crawl, embed and delete. Keys cannot manage keys.
      </p>
      <CreateKey
        onCreated={(key) => {
          setNotice(null);
          setCreated(key);
          void load();
        }}
      />
      {created ? <NewKey created={created} onDismiss={() => setCreated(null)} /> : null}
      <h2>Your keys</h2>
      <p class="message notice" role="status">
        {notice ?? ''}
      </p>
      <ErrorMessage message={error} />
      {keys && keys.length === 0 ? <p>No keys yet.</p> : null}
      {keys && keys.length > 0 ? (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="API keys table">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Permission</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.keyPrefix}…</code>
                  </td>
                  <td>{key.permissions}</td>
                  <td>{formatDate(key.createdAt)}</td>
                  <td>{formatDate(key.lastUsedAt)}</td>
                  <td>
                    <button
                      type="button"
                      class="danger small"
                      onClick={() => setRevoking(key)}
                      aria-label={`Revoke key ${key.name}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke key ${revoking?.name ?? ''}?`}
        confirmLabel={`Revoke ${revoking?.name ?? 'key'}`}
        onConfirm={() => void revoke()}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Anything that uses the key <code>{revoking?.keyPrefix}…</code> stops working at once. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: { name: string; key: string; permissions: string }) => void }) {
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<'read' | 'admin'>('read');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.createKey(name.trim(), permissions);
      setName('');
      onCreated(created);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={(event) => void submit(event)} aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create a key</h2>
      <div class="field">
        <label for="key-name">Key name</label>
        <input
          id="key-name"
          required
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          placeholder="CI uploader"
        />
      </div>
      <fieldset>
        <legend>Permission</legend>
        <label class="choice">
          <input
            type="radio"
            name="permissions"
            value="read"
            checked={permissions === 'read'}
            onChange={() => setPermissions('read')}
          />{' '}
          read
        </label>
        <label class="choice">
          <input
            type="radio"
            name="permissions"
            value="admin"
            checked={permissions === 'admin'}
            onChange={() => setPermissions('admin')}
          />{' '}
          admin
        </label>
      </fieldset>
      <ErrorMessage message={error} />
      <button type="submit" disabled={busy}>
        Create key
      </button>
    </form>
  );
}

/** The full key, this once: a copy button and the warning that it will not be shown again. */
function NewKey({
  created,
  onDismiss,
}: {
  created: { name: string; key: string; permissions: string };
  onDismiss: () => void;
}) {
  const [copied, setCopied] = useState<string | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [created.key]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied to the clipboard.');
    } catch {
      input.current?.select();
      setCopied('Copying is blocked here: the key is selected, press Ctrl+C to copy it.');
    }
  };
  return (
    <div class="new-key card" tabIndex={-1} ref={ref} aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">
        New {created.permissions} key “{created.name}”
      </h2>
      <p class="warning">
        <strong>Copy this key now: it will not be shown again.</strong> Docshelf keeps only a hash of it.
      </p>
      <label for="new-key-value">Full key</label>
      <div class="inline-row">
        <input
          id="new-key-value"
          ref={input}
          readOnly
          value={created.key}
          class="mono"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy key
        </button>
      </div>
      <p role="status" class="hint">
        {copied ?? ''}
      </p>
      <button type="button" class="secondary" onClick={onDismiss}>
        I have copied the key
      </button>
    </div>
  );
}
