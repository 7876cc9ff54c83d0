package org.meshjava.journal.internal;

import java.time.Duration;
import java.util.Collections;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For test classes that refuse many locks on purpose and count what each refusal leaves
 * (descriptors), not when it stands ({@code @ExtendWith(ShortLockRetries.class)}): for the class's
 * run, {@link LockHolder#tryLock} keeps its retries, one microsecond apart instead of {@link
 * LockHolder#RETRY_PAUSES}, about 31 ms a refusal that over 64 refusals cost seconds.
 */
public final class ShortLockRetries implements BeforeAllCallback, AfterAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    LockHolder.pauseBeforeRetries(
        Collections.nCopies(LockHolder.RETRY_PAUSES.size(), Duration.ofNanos(1_000)));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    LockHolder.pauseBeforeRetries(LockHolder.RETRY_PAUSES);
  }
}
