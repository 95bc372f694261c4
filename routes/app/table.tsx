/**
 * The app's list table, one shape on every page: a scrolling wrapper, a header row of column names, rows as
 * children (stacked one under another on narrow screens, `stack-sm`). Pages whose rows end in buttons set
 * `actions`: the last column's header then says "Actions" to screen readers only.
 */
import type { Child, FC } from "hono/jsx";
import { PostButton } from "./layout.tsx";

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
            <th scope="col" data-label="">
              <span class="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);

/** The last two cells of a key's row: its state, and a Revoke button while it is active. */
export const KeyStateCells: FC<{ revoked: boolean; action: string; csrf: string; confirm: string }> = (p) => (
  <>
    <td>{p.revoked ? <span class="badge off">revoked</span> : <span class="badge on">active</span>}</td>
    <td>
      {!p.revoked && (
        <PostButton action={p.action} csrf={p.csrf} label="Revoke" kind="danger" confirm={p.confirm} />
      )}
    </td>
  </>
);
