export function Stepper({ steps, current }: { steps: string[]; current: number }) {
  return (
    <ol className="stepper" aria-label="Progress">
      {steps.map((label, i) => {
        const n = i + 1;
        const state = n < current ? 'done' : n === current ? 'current' : 'todo';
        return (
          <li key={label} className={`stepper-item stepper-${state}`} aria-current={state === 'current' ? 'step' : undefined}>
            <span className="stepper-dot" aria-hidden="true">{state === 'done' ? '✓' : n}</span>
            <span className="stepper-label">{label}</span>
          </li>
        );
      })}
    </ol>
  );
}
