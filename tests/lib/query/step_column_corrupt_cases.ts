/**
 * A step column whose stored bytes cannot be read (a chunk overwritten, a section cut short) fails with an
 * error naming the part and the section, through the paths question too, instead of a bare RangeError.
 */
import assert from "node:assert/strict";
import { listParts } from "../../../lib/parts/store.ts";
import { columnPaths } from "../../../lib/query/sequence/paths_column.ts";
import {
  encodeSessions,
  readStepEntries,
  readStepSection,
  readStepSessions,
  secName,
  SESSIONS,
  stepColumnKeys,
} from "../../../lib/query/step_column/store.ts";
import type { Scope } from "../../../lib/query/types.ts";
import { naivePaths } from "./reference.ts";
import { columnSite, MIDNIGHT, NOW, oneVisitorEvent } from "./step_column_fixtures.ts";

const scope: Scope = {
  org: "org1",
  env: "production",
  from: MIDNIGHT - 86_400_000,
  to: NOW,
  timezone: "UTC",
};
const options = { anchor: { event_type: "$pageview" }, direction: "after" as const };

Deno.test("step column: unreadable bytes fail naming the part and the section", async () => {
  await columnSite(
    [
      oneVisitorEvent(2, "$pageview", "/pricing"),
      oneVisitorEvent(5, "$pageview", "/"),
      oneVisitorEvent(8, "sign_up", "/", "s2"),
    ],
    [],
    [],
    async ({ deps, all, tiny }) => {
      const part = (await listParts(deps.kv, "org1", "production", "ev"))[0].meta;
      const [entry] = await readStepEntries(deps.kv, [part.id]);
      assert.ok(entry, "the part has a column");
      // intact: read as stored, and paths answer as the reference
      assert.equal((await readStepSection(deps.kv, part.id, entry, secName("$pageview")))?.section.n, 2);
      assert.deepEqual(await columnPaths(tiny, scope, options, deps.kv), naivePaths(all, scope, options));

      // the $pageview section's first chunk overwritten with bytes that are not a section
      const [sec] = entry.secs[secName("$pageview")];
      await deps.kv.set(stepColumnKeys.chunk(part.id, sec * 10_000), new Uint8Array([7, 0, 0, 0, 1, 2, 3]));
      await assert.rejects(
        () => readStepSection(deps.kv, part.id, entry, secName("$pageview")),
        (e: Error) =>
          e.message.startsWith(
            `step column of part ${part.id}: its section of "$pageview" events cannot be read`,
          ),
      );
      await assert.rejects(
        () => columnPaths(tiny, scope, options, deps.kv),
        (e: Error) =>
          e.message.includes(`step column of part ${part.id}`) && e.message.includes('"$pageview"'),
      );

      // a session table that decodes but holds fewer sessions than its entry counts
      const [ses] = entry.secs[SESSIONS];
      const short = encodeSessions(new Uint32Array([1]), new Uint32Array([2]));
      await deps.kv.set(stepColumnKeys.chunk(part.id, ses * 10_000), short);
      await assert.rejects(
        () =>
          readStepSessions(deps.kv, part.id, {
            ...entry,
            secs: { ...entry.secs, [SESSIONS]: [ses, short.length, 1, 2] },
          }),
        (e: Error) =>
          e.message === `step column of part ${part.id}: its session table holds 1 rows, its entry says 2`,
      );
    },
  );
});
