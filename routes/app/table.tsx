/**
 * The app's list table, one shape on every page: a scrolling wrapper, a header row of column names, rows as
 * children (stacked one under another on narrow screens, `stack-sm`). Pages whose rows end in buttons set
 * `actions`: the last column's header then says "Actions" to screen readers only.
 */
import type { Child, FC } from "hono/jsx";

export const Table: FC<{
  /** Column headers in order; `false` leaves a column out (e.g. one a key kind does not have). */
  columns: (string | false)[];
  actions?: boolean;
  id?: string;
  children?: Child;
}> = ({ columns, actions, id, children }) => (
  <div class="table-wrap">
    <table class="stack-sm" {...(id ? { id } : {})}>
      <thead>
        <tr>
          {columns.map((name) => name !== false && <th scope="col">{name}</th>)}
          {actions && (
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);
