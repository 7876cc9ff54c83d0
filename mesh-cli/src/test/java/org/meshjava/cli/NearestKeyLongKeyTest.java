package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A very long unknown key (a megabyte pasted into a configuration file or onto the command line by
 * mistake) is judged near no known key without the edit-distance table of its length by each key's:
 * the guess costs memory in proportion to the key, not to the key times every known key.
 */
class NearestKeyLongKeyTest {
  static {
    // On the module path this module reads neither of the modules that count allocations.
    Module self = NearestKeyLongKeyTest.class.getModule();
    ModuleLayer.boot().findModule("java.management").ifPresent(self::addReads);
    ModuleLayer.boot().findModule("jdk.management").ifPresent(self::addReads);
  }

  /** What this thread has allocated so far, in bytes (HotSpot counts it exactly). */
  private static long allocated() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }

  /**
   * Regression: a key of a megabyte allocated a row of the table per letter for each known key,
   * some 2 GB over the serve configuration's keys.
   */
  @Test
  void aMegabyteKey_namesNothing_withoutATablePerLetter() {
    String typed = "port" + "x".repeat(1 << 20);
    long before = allocated();
    assertThat(NearestKey.of(typed, ServeConfig.KEYS)).isEmpty();
    assertThat(allocated() - before).isLessThan(64L << 20);
  }

  @Test
  void theBound_keepsEveryNearGuess() {
    assertThat(NearestKey.of("prot", ServeConfig.KEYS)).containsExactly("port");
    assertThat(NearestKey.of("journl", ServeConfig.KEYS)).contains("journal");
    assertThat(NearestKey.of("jouurnal", ServeConfig.KEYS)).contains("journal");
  }
}
