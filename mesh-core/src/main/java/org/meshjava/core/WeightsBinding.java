package org.meshjava.core;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The weights a backend runs, bound by content (§3.6): the digest of the files its forward pass
 * reads and the numeric precision it runs them at. The two travel together because neither
 * reproduces a result alone; a receipt carries both or neither.
 *
 * @param digest the weights digest
 * @param precision the precision as the backend names it ({@code fp32}, {@code bf16}, {@code int8},
 *     …): lowercase letters and digits
 */
public record WeightsBinding(ContentId digest, String precision) {
  private static final Pattern PRECISION = Pattern.compile("[a-z][a-z0-9_]{0,15}");

  /** Validates the binding. */
  public WeightsBinding {
    Objects.requireNonNull(digest, "digest");
    Objects.requireNonNull(precision, "precision");
    if (!PRECISION.matcher(precision).matches()) {
      throw new IllegalArgumentException(
          "precision must be a short lowercase name such as fp32 or int8: '" + precision + "'");
    }
  }
}
