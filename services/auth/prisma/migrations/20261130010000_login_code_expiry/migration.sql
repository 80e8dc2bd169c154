-- Each send-code deletes up to 10 expired codes, oldest first (src/actions/login.ts): a row
-- names an address, of someone who may never have signed up, and goes once it is dead.
CREATE INDEX "login_codes_expires_idx" ON "login_codes"("expires_at");
