/**
 * The tables written beside a new part (compaction, the generator's direct parts), under its building mark:
 * for an event part its rollup (rollup/), Web Vitals histograms (vitals/), property rollup (prop_rollup/),
 * feature table (feature_rollup/) and step column (step_column/), its visitors numbered once for all five
 * (each numbering reads every visitor's number from KV); for a hit part its rollup (hit_rollup/). Older parts
 * get theirs from the backfills in lib/jobs/.
 */
import type { Batch } from "../parts/columns.ts";
import type { PartKind } from "../parts/store.ts";
import { type KnownNumbers, numberVisitors } from "../parts/visitor_numbers.ts";
import type { EnvName } from "../store/records.ts";
import { buildFeatureTable } from "./feature_rollup/build.ts";
import { storeFeatureTable } from "./feature_rollup/store.ts";
import { buildHitRollup } from "./hit_rollup/build.ts";
import { writeHitRollup } from "./hit_rollup/store.ts";
import { buildPropRollup, buildPropRollupTurning } from "./prop_rollup/build.ts";
import { storeBuiltPropRollup } from "./prop_rollup/store.ts";
import { batchVisitors, buildRollup, buildRollupTurning, rowVisitors } from "./rollup/build.ts";
import type { Turn } from "../turns.ts";
import { writeRollup } from "./rollup/store.ts";
import { storeStepColumn } from "./step_column/store.ts";
import { buildStepColumn, buildStepColumnTurning } from "./step_column/build.ts";
import { vitalsOf, writeVitals } from "./vitals/store.ts";

export async function writePartTables(
  kv: Deno.Kv,
  partId: string,
  org: string,
  env: EnvName,
  kind: PartKind,
  batch: Batch,
  /** compaction's: the event loop gets turns inside the two largest builds and between the tables */
  turn?: Turn,
  /** visitor numbers the writer knows already (the generator's, kept across its parts) */
  known?: KnownNumbers,
): Promise<void> {
  if (kind === "hit") return void await writeHitRollup(kv, partId, buildHitRollup(batch));
  const rows = rowVisitors(batch, await numberVisitors(kv, org, env, batchVisitors(batch), known));
  const visitorOf = (i: number) => rows[i];
  await writeRollup(
    kv,
    partId,
    turn ? await buildRollupTurning(batch, visitorOf, turn) : buildRollup(batch, visitorOf),
    turn,
  );
  await turn?.();
  await writeVitals(kv, partId, vitalsOf(batch, visitorOf));
  await turn?.();
  await storeBuiltPropRollup(
    kv,
    partId,
    () => (turn ? buildPropRollupTurning(batch, visitorOf, turn) : buildPropRollup(batch, visitorOf)),
  );
  await turn?.();
  await storeFeatureTable(kv, partId, buildFeatureTable(batch, visitorOf));
  await turn?.();
  await storeStepColumn(
    kv,
    partId,
    turn ? await buildStepColumnTurning(batch, visitorOf, turn) : buildStepColumn(batch, visitorOf),
  );
}
