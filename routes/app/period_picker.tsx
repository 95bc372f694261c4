/**
 * The period picker: the named periods every read tool takes, in words, and a custom range of two dates
 * (shown only when "Custom range" is chosen, by CSS :has, no script). The form sends `period` (a name or
 * "custom") with `period_from` / `period_to`; `periodFromForm` turns that into the tools' period text.
 */
import type { FC } from "hono/jsx";
import { invalid } from "../../lib/errors.ts";
import { DEFAULT_PERIOD } from "../../pipeline/context.ts";

export const NAMED_PERIODS: { id: string; label: string }[] = [
  { id: "today", label: "Today" },
  { id: "yesterday", label: "Yesterday" },
  { id: "last_7_days", label: "Last 7 days" },
  { id: "last_28_days", label: "Last 28 days" },
  { id: "last_30_days", label: "Last 30 days" },
  { id: "last_90_days", label: "Last 90 days" },
  { id: "this_month", label: "This month" },
  { id: "last_month", label: "Last month" },
];

const RANGE = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A period as words: "Last 28 days", "2026-11-01 to 2026-11-07", "November 2026". */
export function periodLabel(period: string | undefined | null, fallback = "Last 28 days"): string {
  if (!period) return fallback;
  const named = NAMED_PERIODS.find((p) => p.id === period);
  if (named) return named.label;
  const r = period.match(RANGE);
  if (r) return `${r[1]} to ${r[2]}`;
  if (/^\d{4}-\d{2}$/.test(period)) {
    return new Date(`${period}-01T00:00:00Z`).toLocaleString("en-US", {
      month: "long",
      year: "numeric",
      timeZone: "UTC",
    });
  }
  return period;
}

/**
 * The period a tool asks when given none, as its input schema tells assistants: the `period` field's
 * description ("default last_7_days", "... Default last_28_days."), else the read API's own default. The
 * picker names it ("Default (last 7 days)"); tests/routes/app/insight_default_period_test.ts runs every
 * insight tool without a period and checks the two agree.
 */
export function defaultPeriodIn(periodDescription: string | undefined): string {
  const named = /\bdefault (\w+)/i.exec(periodDescription ?? "")?.[1];
  return named && NAMED_PERIODS.some((p) => p.id === named) ? named : DEFAULT_PERIOD;
}

/** "Default (last 7 days)": the picker's first choice, naming the period asked when none is chosen. */
export const defaultChoice = (period: string = DEFAULT_PERIOD) => {
  const label = periodLabel(period);
  return `Default (${label.charAt(0).toLowerCase()}${label.slice(1)})`;
};

/** The tools' period text the picker describes, "" for the default; a bad custom range is a 422 saying why. */
export function periodFromForm(get: (k: string) => string): string {
  const p = get("period").trim();
  if (!p) return "";
  if (p !== "custom") {
    if (NAMED_PERIODS.some((x) => x.id === p) || RANGE.test(p) || /^\d{4}-\d{2}$/.test(p)) return p;
    throw invalid(`period: choose one of the periods in the list or a custom range`);
  }
  const from = get("period_from").trim(), to = get("period_to").trim();
  if (!DATE.test(from) || !DATE.test(to)) {
    throw invalid("period: a custom range needs a first and a last day");
  }
  if (from > to) throw invalid("period: the first day of the range comes after its last day");
  return `${from}..${to}`;
}

export const PeriodPicker: FC<{
  value: string;
  label?: string;
  /** the first choice's words, when it is no single period ("Each insight's own period") */
  defaultLabel?: string;
  /** the period asked when none is chosen (the question's own default, see defaultPeriodIn) */
  defaultPeriod?: string;
  id?: string;
  name?: string;
}> = (p) => {
  const r = p.value.match(RANGE);
  const custom = !!r;
  const name = p.name ?? "period";
  const id = p.id ?? name;
  return (
    <div class="field period-picker">
      <label for={id}>{p.label ?? "Period"}</label>
      <select name={name} id={id}>
        <option value="" selected={!p.value}>{p.defaultLabel ?? defaultChoice(p.defaultPeriod)}</option>
        {NAMED_PERIODS.map((x) => <option value={x.id} selected={x.id === p.value}>{x.label}</option>)}
        <option value="custom" selected={custom}>Custom range…</option>
        {p.value && !custom && !NAMED_PERIODS.some((x) => x.id === p.value) && (
          <option value={p.value} selected>{periodLabel(p.value)}</option>
        )}
      </select>
      <div class="custom-range row">
        <label>
          From
          <input type="date" name={`${name}_from`} value={r?.[1] ?? ""} />
        </label>
        <label>
          To
          <input type="date" name={`${name}_to`} value={r?.[2] ?? ""} />
        </label>
      </div>
    </div>
  );
};
