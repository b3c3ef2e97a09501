import { useId } from 'react';
import { Field, Select } from '../../../components/ui';
import type { Errors } from '../shared/forms';
import { CAPTURE_LIMITS, describeWindow, type CaptureUnit, type ChargeLater } from './charge-later';

const UNITS: { value: CaptureUnit; label: string }[] = [{ value: 'days', label: 'days' }, { value: 'hours', label: 'hours' }];

/**
 * The charge-later control of the create forms: a checkbox (keyboard: Tab, Space) that reveals the capture
 * window right after it. Errors come from the form's client check or the API's 422 (`param` capture_method or
 * capture_within_seconds), in the same slots.
 */
export function ChargeLaterFields({ value, onChange, errors }: { value: ChargeLater; onChange: (v: ChargeLater) => void; errors: Errors }) {
  const id = useId();
  const span = describeWindow(value);
  return (
    <fieldset className="charge-later">
      <legend className="sr-only">Capture</legend>
      <div className="check-row">
        <input
          id={`${id}-on`}
          type="checkbox"
          name="capture_method"
          checked={value.enabled}
          onChange={(e) => onChange({ ...value, enabled: e.target.checked })}
          aria-describedby={`${id}-about`}
          aria-invalid={errors.capture_method ? true : undefined}
          aria-controls={`${id}-window`}
          aria-expanded={value.enabled}
        />
        <label htmlFor={`${id}-on`}>Charge later (authorize now, {span ? `capture within ${span}` : 'capture later'})</label>
      </div>
      <p id={`${id}-about`} className={errors.capture_method ? 'field-error' : 'field-hint'}>
        {errors.capture_method ?? 'The payment router holds the buyer\u2019s payment until you capture all or part of it from the order, or void it. Whatever is not captured goes back to the buyer.'}
      </p>
      <div id={`${id}-window`} className="capture-within" hidden={!value.enabled}>
        {value.enabled && (
          <>
            <Field
              label="Capture window"
              name="capture_within_seconds"
              inputMode="numeric"
              value={value.within}
              onChange={(e) => onChange({ ...value, within: e.target.value })}
              error={errors.capture_within_seconds}
              hint={CAPTURE_LIMITS}
            />
            <Select label="Unit" name="capture_unit" value={value.unit} onChange={(e) => onChange({ ...value, unit: e.target.value as CaptureUnit })} options={UNITS} hint="" />
          </>
        )}
      </div>
    </fieldset>
  );
}
