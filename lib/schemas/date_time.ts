/**
 * The one ISO 8601 date-time field the wire formats use (device_time, a hit's timestamp, a hit batch's sent_at,
 * a key's expires_at).
 * A time must name its timezone: "2026-11-20T12:00:00" is a different instant in every zone, so it is refused,
 * and the message says that is what is missing rather than only "not a date-time".
 */
import { z } from "zod";

export const DATE_TIME_EXAMPLE = "2026-11-20T12:00:00Z";
/** A date and time of day as ISO 8601 writes them, with nothing after: a timezone is all that is missing. */
const WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** Why `input` is not a date-time the service accepts (the schema only calls this for one it refused). */
export function dateTimeMessage(input: unknown): string {
  if (typeof input === "string" && WITHOUT_ZONE.test(input.trim())) {
    return `has no timezone: end it with Z (UTC) or an offset such as +01:00, as in ${DATE_TIME_EXAMPLE}`;
  }
  return `must be an ISO 8601 date-time with a timezone (Z or an offset such as +01:00), as in ${DATE_TIME_EXAMPLE}`;
}

/** An ISO 8601 date-time with its timezone (Z or ±hh:mm). */
export const dateTime = () =>
  z.iso.datetime({ offset: true, error: (issue) => dateTimeMessage(issue.input) });
