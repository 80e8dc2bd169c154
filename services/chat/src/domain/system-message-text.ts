// English fallback text of each system message; clients translate by content_key.
import type { SystemMessageJob } from '@svc/types';

export const SYSTEM_SENDER_NAME = 'System';

export function systemMessageText(job: SystemMessageJob): string {
  switch (job.content_key) {
    case 'site_submitted':
      return `New site submitted: ${job.content_params.domain}`;
    case 'app_blocked':
      return `App blocked: ${job.content_params.name}`;
  }
}
