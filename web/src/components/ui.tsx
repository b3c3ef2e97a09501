import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { linkClick } from '../lib/router';
import { humanize, shortHex } from '../lib/format';
import { chainName, isTestNetwork, IS_DEVNET } from '../lib/chains';

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost'; loading?: boolean; size?: 'sm' | 'md' | 'lg'; block?: boolean };

export function Button({ variant = 'secondary', loading = false, size = 'md', block = false, className = '', children, disabled, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      {...rest}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={`btn btn-${variant} btn-${size}${block ? ' btn-block' : ''} ${className}`}
    >
      {loading && <span className="spinner" aria-hidden="true" />}
      <span>{children}</span>
    </button>
  );
}

export function Link({ href, children, className }: { href: string; children: ReactNode; className?: string }) {
  return (
    <a href={href} onClick={linkClick} className={className}>
      {children}
    </a>
  );
}

type FieldProps = InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: ReactNode; error?: string | null; suffix?: string };

export function Field({ label, hint, error, suffix, id, className = '', ...rest }: FieldProps) {
  const auto = useId();
  const inputId = id ?? auto;
  const hintId = `${inputId}-hint`;
  return (
    <div className={`field ${className}`}>
      <label htmlFor={inputId}>{label}</label>
      <div className={`input-wrap${suffix ? ' has-suffix' : ''}`}>
        <input id={inputId} aria-invalid={error ? true : undefined} aria-describedby={hint || error ? hintId : undefined} {...rest} />
        {suffix && <span className="input-suffix">{suffix}</span>}
      </div>
      <p id={hintId} className={error ? 'field-error' : 'field-hint'}>
        {error ?? hint ?? '\u00a0'}
      </p>
    </div>
  );
}

type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & { label: string; options: { value: string; label: string }[]; hint?: string; error?: string | null };

export function Select({ label, options, hint, error, id, className = '', ...rest }: SelectProps) {
  const auto = useId();
  const selectId = id ?? auto;
  const hintId = `${selectId}-hint`;
  return (
    <div className={`field ${className}`}>
      <label htmlFor={selectId}>{label}</label>
      <select id={selectId} aria-invalid={error ? true : undefined} aria-describedby={error ? hintId : undefined} {...rest}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error ? <p id={hintId} className="field-error">{error}</p> : hint !== undefined && <p className="field-hint">{hint || '\u00a0'}</p>}
    </div>
  );
}

export function Card({ title, actions, children, className = '', padded = true }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; padded?: boolean }) {
  return (
    <section className={`card ${className}`}>
      {(title || actions) && (
        <header className="card-header">
          {title && <h2 className="card-title">{title}</h2>}
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      <div className={padded ? 'card-body' : ''}>{children}</div>
    </section>
  );
}

const TONES: Record<string, 'green' | 'amber' | 'red' | 'gray' | 'blue'> = {
  active: 'green', enabled: 'green', confirmed: 'green', completed: 'green', delivered: 'green', succeeded: 'green',
  pending: 'amber', pending_payment: 'amber', open: 'blue', authorized: 'blue', voided: 'gray', requires_funding: 'amber', partially_refunded: 'blue', retrying: 'amber',
  failed: 'red', revoked: 'gray', expired: 'gray', refunded: 'gray', disabled: 'red', past_due: 'amber', canceled: 'gray', incomplete: 'blue',
};

export function Badge({ state, children }: { state: string; children?: ReactNode }) {
  return <span className={`badge badge-${TONES[state] ?? 'gray'}`}>{children ?? humanize(state)}</span>;
}

export function Alert({ tone = 'error', title, children }: { tone?: 'error' | 'info' | 'success' | 'warning'; title?: string; children?: ReactNode }) {
  return (
    <div className={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {title && <strong>{title}</strong>}
      {children && <div>{children}</div>}
    </div>
  );
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return (
    <span className="spinner spinner-dark" role="status" aria-label={label}>
      <span className="sr-only">{label}</span>
    </span>
  );
}

export function CopyButton({ value, label = 'Copy', size = 'sm' }: { value: string; label?: string; size?: 'sm' | 'md' }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Clipboard blocked (http, permissions): select-and-copy fallback.
      const ta = document.createElement('textarea');
      ta.value = value;
      document.body.appendChild(ta);
      ta.select();
      document.execCommand('copy');
      ta.remove();
    }
    setCopied(true);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setCopied(false), 1800);
  };
  return (
    <Button size={size} onClick={copy} aria-live="polite" className="copy-btn">
      {copied ? 'Copied' : label}
    </Button>
  );
}

/** A secret or link shown once: monospace value, copy button and a warning. */
export function SecretReveal({ label, value, warning }: { label: string; value: string; warning: string }) {
  const id = useId();
  return (
    <div className="secret-reveal">
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input id={id} className="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={value} size="md" />
      </div>
      <p className="secret-warning">{warning}</p>
    </div>
  );
}

export function Empty({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <div className="empty-icon" aria-hidden="true" />
      <p className="empty-title">{title}</p>
      {children && <p className="empty-text">{children}</p>}
      {action && <div className="empty-action">{action}</div>}
    </div>
  );
}

export function SkeletonRows({ rows = 5, cols = 4 }: { rows?: number; cols?: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} className="skeleton-row" aria-hidden="true">
          {Array.from({ length: cols }, (_, c) => (
            <td key={c}>
              <span className="skeleton" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

export function Modal({ title, onClose, children, footer, wide = false }: { title: string; onClose: () => void; children: ReactNode; footer?: ReactNode; wide?: boolean }) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  // The page behind re-renders (polling, the clock) and hands a new onClose each time; the focus and key handling
  // are set up once per opening, or every re-render would pull focus (and the scroll) back to the first field.
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>('input, select, textarea, button:not(.modal-close)');
    first?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close.current();
    };
    document.addEventListener('keydown', onKey);
    document.body.classList.add('modal-open');
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.classList.remove('modal-open');
      previous?.focus();
    };
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={`modal${wide ? ' modal-wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId} ref={ref}>
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="modal-close" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>
  );
}

export function DescriptionList({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="dl">
      {items.map(([k, v]) => (
        <div key={k} className="dl-row">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Free text or an id in a table cell: one line (or two for prose), cut with an ellipsis at the column's width, the whole value in the tooltip. */
export function Clip({ text, mono = false, twoLines = false }: { text: string; mono?: boolean; twoLines?: boolean }) {
  return <span className={`${twoLines ? 'cell-clamp' : 'cell-clip'}${mono ? ' mono-soft' : ''}`} title={text}>{text}</span>;
}

export function Mono({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <span className="mono" title={title}>
      {children}
    </span>
  );
}

export function Logo({ small = false }: { small?: boolean }) {
  return (
    <span className={`logo${small ? ' logo-sm' : ''}`}>
      <svg viewBox="0 0 32 32" aria-hidden="true" width={small ? 20 : 26} height={small ? 20 : 26}>
        <rect width="32" height="32" rx="8" fill="#4f46e5" />
        <path d="M9 11h14M16 11v12M10.5 23h11" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" />
      </svg>
      <span>Trisettle</span>
    </span>
  );
}

/** The one way a chain is named: "Base Sepolia" with a visible "Test network" badge, "Base", or on the devnet "Local devnet (chain 84532)" (its name says it). */
export function ChainName({ chainId, short = false }: { chainId: number; short?: boolean }) {
  // In a table row the devnet's long name would be the widest cell of every row: "Devnet", the full name in the title.
  return (
    <span className="chain-name" title={short && IS_DEVNET ? chainName(chainId) : undefined}>
      {short && IS_DEVNET ? 'Devnet' : chainName(chainId)}
      {isTestNetwork(chainId) && !IS_DEVNET && <span className="badge badge-amber testnet-badge">Test network</span>}
    </span>
  );
}

/**
 * An id, address or hash: monospace, shortened in the middle when long (0x1234…abcd, never wrapped), the
 * full value in the tooltip, and a copy button that copies all of it.
 */
export function Hash({ value, head = 6, tail = 4, copy = true, href }: { value: string; head?: number; tail?: number; copy?: boolean; href?: string | null }) {
  const short = value.startsWith('0x') ? shortHex(value, head, tail) : value;
  const text = href
    ? <a className="mono hash-text" href={href} target="_blank" rel="noreferrer" title={value}>{short}</a>
    : <span className="mono hash-text" title={value}>{short}</span>;
  return (
    <span className="hash">
      {text}
      {copy && <CopyButton value={value} label="Copy" />}
    </span>
  );
}
