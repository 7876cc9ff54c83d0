package org.meshjava.journal.internal;

import java.time.Duration;
import java.util.Collections;

/**
 * For tests that refuse many locks on purpose and count what each refusal leaves (descriptors), not
 * when it stands: {@link LockHolder#tryLock} keeps its retries, one microsecond apart instead of
 * {@link LockHolder#RETRY_PAUSES}, about 31 ms a refusal that over 64 refusals cost seconds.
 */
public final class ShortLockRetries {
  private ShortLockRetries() {}

  /** Every retry from now on after one microsecond; as many retries as the product makes. */
  public static void start() {
    LockHolder.pauseBeforeRetries(
        Collections.nCopies(LockHolder.RETRY_PAUSES.size(), Duration.ofNanos(1_000)));
  }

  /** The product's pauses again. */
  public static void end() {
    LockHolder.pauseBeforeRetries(LockHolder.RETRY_PAUSES);
  }
}
