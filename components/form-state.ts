// What a dashboard server action answers a form with.
export interface FormState {
  ok?: boolean;
  /** Shown at the top of the form. */
  error?: string;
  /** Messages by field name ("schedule.cron", "graceSeconds"), shown next to the field. */
  fields?: Record<string, string>;
  message?: string;
  /** Shown once (a new API key, a webhook secret). */
  secret?: string;
}
