package org.meshjava.steward;

import java.util.Objects;
import java.util.function.Consumer;
import org.meshjava.jcp.DebitResult;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * A listener that runs a test's actions: as each serve's phase begins, as the serve ends ({@code
 * "served"}, {@code "refused"} or {@code "failed"}, told after the outcome is known) and as a grant
 * is debited. Tests that interrupt or throw from a listener at one point share it, so each states
 * only where it acts and what it does there.
 *
 * @param onPhase run with each phase as it begins
 * @param onOutcome run with the name of the serve's outcome
 * @param onDebited run when a grant is debited
 */
record ScriptedListener(
    Consumer<ServePhase> onPhase, Consumer<String> onOutcome, Runnable onDebited)
    implements StewardListener {
  ScriptedListener {
    Objects.requireNonNull(onPhase, "onPhase");
    Objects.requireNonNull(onOutcome, "onOutcome");
    Objects.requireNonNull(onDebited, "onDebited");
  }

  @Override
  public ServeObserver serveStarted(ServeStarted serve) {
    return new ServeObserver() {
      @Override
      public void phase(ServePhase phase) {
        onPhase.accept(phase);
      }

      @Override
      public void served(ServeResult result) {
        onOutcome.accept("served");
      }

      @Override
      public void refused(ServeException refusal) {
        onOutcome.accept("refused");
      }

      @Override
      public void failed(Throwable failure) {
        onOutcome.accept("failed");
      }
    };
  }

  @Override
  public void debited(DebitResult debit) {
    onDebited.run();
  }
}
