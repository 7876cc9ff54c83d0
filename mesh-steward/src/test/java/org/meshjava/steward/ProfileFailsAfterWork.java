package org.meshjava.steward;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;

/**
 * An engine whose cost profile throws once it has served (a profile unloaded with its model, or a
 * bug in engine code): the steward asks the profile again after the work, to price what ran.
 */
final class ProfileFailsAfterWork extends StewardGrantTest.Delegating {
  private final AtomicBoolean served = new AtomicBoolean();
  private final Supplier<? extends Throwable> failure;

  /** {@code failure} makes what the profile throws: an unchecked exception or an error. */
  ProfileFailsAfterWork(ServingEngine inner, Supplier<? extends Throwable> failure) {
    super(inner);
    this.failure = failure;
  }

  @Override
  public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
    EngineResult result = super.serve(r, p);
    served.set(true);
    return result;
  }

  @Override
  public CostProfile costProfile() {
    if (served.get()) {
      Throwable t = failure.get();
      if (t instanceof Error e) {
        throw e;
      }
      throw (RuntimeException) t;
    }
    return super.costProfile();
  }
}
