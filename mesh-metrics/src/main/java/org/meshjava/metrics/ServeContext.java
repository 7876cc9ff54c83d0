package org.meshjava.metrics;

import io.micrometer.observation.Observation;
import java.util.Objects;
import org.meshjava.steward.observe.ServeStarted;

/**
 * The context of one serve's observation ({@link StewardObservations#SERVE}): the serve as the
 * steward was handed it. A handler can read it, besides the key values the observation carries.
 */
public final class ServeContext extends Observation.Context {
  private final ServeStarted serve;

  ServeContext(ServeStarted serve) {
    this.serve = Objects.requireNonNull(serve, "serve");
  }

  /** The serve as the steward was handed it. */
  public ServeStarted serve() {
    return serve;
  }
}
