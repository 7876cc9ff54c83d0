package org.meshjava.steward.observe;

import java.util.Objects;
import org.meshjava.core.ServeRequest;

/**
 * A serve the steward has just been handed, before any phase runs.
 *
 * <p>Immutable.
 *
 * @param request the request as the caller made it; its {@code model} is what was asked for
 * @param granted whether a grant was presented with it
 * @param streamed whether its tokens are handed to a sink as they are produced
 */
public record ServeStarted(ServeRequest request, boolean granted, boolean streamed) {
  /** Validates the record. */
  public ServeStarted {
    Objects.requireNonNull(request, "request");
  }
}
