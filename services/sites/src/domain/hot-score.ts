// hot_score, Reddit-"hot" style. The SQL twin is the generated column `sites.hot_score`
// (init migration); this function is the same formula for unit tests and documentation.
//
//   hot_score = log10(max(1, 2·submit_count + click_count + 5·boost_count))
//             + seconds(first_submitted_at − 2026-01-01T00:00:00Z) / 45000
//
// Activity raises the log term (a boost weighs 5 clicks, a resubmission 2); age decays a
// site relative to newer ones: every 45 000 s (12.5 h) a newer site needs 10× fewer
// points to rank equal. Nothing in it depends on "now", so the stored value never needs
// rewriting as time passes and `ORDER BY hot_score DESC` is served by a btree index.

export const HOT_EPOCH_MS = Date.UTC(2026, 0, 1);
export const HOT_DECAY_SECONDS = 45_000;
export const HOT_WEIGHTS = { submit: 2, click: 1, boost: 5 } as const;

export interface HotInputs {
  submitCount: number;
  clickCount: number;
  boostCount: number;
  firstSubmittedAt: Date;
}

export function hotScore(s: HotInputs): number {
  const points =
    HOT_WEIGHTS.submit * s.submitCount +
    HOT_WEIGHTS.click * s.clickCount +
    HOT_WEIGHTS.boost * s.boostCount;
  const ageSeconds = (s.firstSubmittedAt.getTime() - HOT_EPOCH_MS) / 1000;
  return Math.log10(Math.max(1, points)) + ageSeconds / HOT_DECAY_SECONDS;
}
