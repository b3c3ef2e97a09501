import { useState } from 'react';
import { ALL_EVENTS, EVENT_TYPES } from '../../../lib/types';

export function describeEvents(events: string[]): string {
  if (events.includes(ALL_EVENTS)) return 'All events';
  return events.length > 3 ? `${events.slice(0, 3).join(', ')} +${events.length - 3} more` : events.join(', ');
}

/** The picked event types as a form holds them; `subscribed()` is what the API takes. */
export function useEventChoice(initial: string[]) {
  const [all, setAll] = useState(initial.includes(ALL_EVENTS));
  const [events, setEvents] = useState<Set<string>>(new Set(initial.filter((t) => t !== ALL_EVENTS)));
  const toggle = (t: string) => setEvents((s) => {
    const n = new Set(s);
    if (n.has(t)) n.delete(t);
    else n.add(t);
    return n;
  });
  const subscribed = () => (all ? [ALL_EVENTS] : EVENT_TYPES.filter((t) => events.has(t)));
  return { all, setAll, events, toggle, subscribed, empty: !all && events.size === 0 };
}

export function EventPicker({ choice, error }: { choice: ReturnType<typeof useEventChoice>; error?: string }) {
  const { all, setAll, events, toggle } = choice;
  return (
    <fieldset className="event-picker">
      <legend>Events to send</legend>
      <div className="check-row">
        <input id="ev-all" type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
        <label htmlFor="ev-all">Every event type, including ones added later</label>
      </div>
      <div className="event-grid">
        {EVENT_TYPES.map((t) => (
          <div key={t} className="check-row">
            <input id={`ev-${t}`} type="checkbox" checked={all || events.has(t)} disabled={all} onChange={() => toggle(t)} />
            <label htmlFor={`ev-${t}`} className="mono-soft">{t}</label>
          </div>
        ))}
      </div>
      <p className={error ? 'field-error' : 'field-hint'}>{error ?? '\u00a0'}</p>
    </fieldset>
  );
}
