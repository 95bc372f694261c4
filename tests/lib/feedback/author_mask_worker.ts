/** Runs authorMasker in a worker, so a test can stop it when a pattern backtracks without end. */
import { authorMasker } from "../../../lib/feedback/author_mask.ts";

// a worker's global scope: messages in and out (typed here, as the checker sees a window's)
const scope = self as unknown as {
  onmessage: (e: MessageEvent<{ author: string; text: string }>) => void;
  postMessage: (text: string) => void;
};
scope.onmessage = (e) => scope.postMessage(authorMasker(e.data.author)(e.data.text));
