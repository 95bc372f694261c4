/**
 * Small tests of lib/jobs (blast radius, compaction's isolation, instances, long names, no queue, the verify
 * job), run as one test module: each `*_cases.ts` file below registers its own tests (names and assertions
 * as they were in its `*_test.ts`), and one module costs one worker and one load of their modules instead of
 * one per file.
 */
import "./blast_radius_cases.ts";
import "./compact_isolation_cases.ts";
import "./instances_cases.ts";
import "./long_names_cases.ts";
import "./no_queue_cases.ts";
import "./verify_cases.ts";
