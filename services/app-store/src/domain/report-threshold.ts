// The community moderation rule (docs/api-reference.md, docs/decisions/004-app-store-rules.md): each distinct reporter
// adds one to report_count; the report that brings it to the threshold blocks the app.
import { REPORT_BLOCK_THRESHOLD } from '@svc/types';

export interface ReportOutcome {
  report_count: number;
  blocked: boolean;
  message: string;
}

/** Whether the report that made the count `reportCount` blocks the app. */
export const reachesBlockThreshold = (
  reportCount: number,
  threshold: number = REPORT_BLOCK_THRESHOLD,
): boolean => reportCount >= threshold;

/** The answer to a recorded report, given the app's report_count after it. */
export function reportOutcome(
  reportCount: number,
  threshold: number = REPORT_BLOCK_THRESHOLD,
): ReportOutcome {
  if (reachesBlockThreshold(reportCount, threshold)) {
    return {
      report_count: reportCount,
      blocked: true,
      message: `Report recorded. The app reached ${threshold} reports and was automatically blocked.`,
    };
  }
  const more = threshold - reportCount;
  return {
    report_count: reportCount,
    blocked: false,
    message: `Report recorded. ${more} more report${more === 1 ? '' : 's'} needed to trigger the automatic block.`,
  };
}
