package org.meshjava.cli;

import java.io.PrintStream;
import java.util.function.LongSupplier;
import org.meshjava.core.weights.ModelDirectory;

/**
 * A one-line progress display for a weights digest (§3.6) on a terminal's error stream: silent for
 * the first two seconds (a small model loads without a word), then rewritten in place at most four
 * times a second, and finished with a line of its own. Not thread-safe; a digest reports from one
 * thread.
 */
final class DigestProgressLine implements ModelDirectory.Progress {
  private static final long QUIET_NANOS = 2_000_000_000L;
  private static final long REDRAW_NANOS = 250_000_000L;

  private final String what;
  private final PrintStream out;
  private final LongSupplier clock;
  private final long start;
  private long lastDrawn;
  private boolean shown;

  DigestProgressLine(String what, PrintStream out) {
    this(what, out, System::nanoTime);
  }

  /** With a given nanosecond clock (tests). */
  DigestProgressLine(String what, PrintStream out, LongSupplier clock) {
    this.what = what;
    this.out = out;
    this.clock = clock;
    this.start = clock.getAsLong();
  }

  @Override
  public void hashed(long done, long total) {
    long now = clock.getAsLong();
    boolean finished = done >= total;
    if (now - start < QUIET_NANOS || (!finished && now - lastDrawn < REDRAW_NANOS)) {
      return;
    }
    if (finished && !shown) {
      return;
    }
    lastDrawn = now;
    shown = true;
    double seconds = (now - start) / 1e9;
    out.printf(
        "\r%s: hashing weights %3d%% (%.1f of %.1f GB, %.0f MB/s)%s",
        what,
        total == 0 ? 100 : (int) (100 * done / total),
        done / 1e9,
        total / 1e9,
        done / 1e6 / seconds,
        finished ? System.lineSeparator() : "");
    out.flush();
    if (finished) {
      shown = false;
    }
  }
}
