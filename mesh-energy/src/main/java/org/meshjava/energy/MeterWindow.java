package org.meshjava.energy;

import org.meshjava.core.Energy;

/**
 * One open metering window. Close it exactly once: with {@link #close(long)} when the serve
 * finished, or {@link #abandon()} when it failed. Not thread-safe; it belongs to one serve.
 */
public interface MeterWindow {

  /**
   * Closes the window and grades the figure.
   *
   * @param estimatedUj the cost-profile estimate of what was actually served; always carried, and
   *     the figure itself when no live counter covers the serve
   * @return an {@link Energy} whose provenance the meter can stand behind (§3.3)
   */
  Energy close(long estimatedUj);

  /** Closes the window without a figure, because the serve failed. */
  void abandon();
}
