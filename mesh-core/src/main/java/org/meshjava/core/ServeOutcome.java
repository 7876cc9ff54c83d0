package org.meshjava.core;

import java.util.Objects;
import java.util.Optional;

/**
 * What a backend reports about a serve (§5). The backend never reports energy: the steward meters
 * around it.
 *
 * @param counters the six counters, which the receipt carries as they are
 * @param deliveredFidelity the level the backend says it served (§3.2.1), if it reports one
 * @param decision what a typed decision answered (§3.6); absent for a generation
 */
public record ServeOutcome(
    OutcomeCounters counters,
    Optional<Fidelity> deliveredFidelity,
    Optional<DecisionShape> decision) {

  /** Validates. */
  public ServeOutcome {
    Objects.requireNonNull(counters, "counters");
    Objects.requireNonNull(deliveredFidelity, "deliveredFidelity");
    Objects.requireNonNull(decision, "decision");
  }

  /**
   * An outcome from the six counters, in their wire order.
   *
   * @throws IllegalArgumentException as {@link OutcomeCounters}
   */
  public ServeOutcome(
      long tokensIn,
      long tokensOut,
      long tokensAccepted,
      long cacheHitTokens,
      long specProposed,
      long specAccepted,
      Optional<Fidelity> deliveredFidelity,
      Optional<DecisionShape> decision) {
    this(
        new OutcomeCounters(
            tokensIn, tokensOut, tokensAccepted, cacheHitTokens, specProposed, specAccepted),
        deliveredFidelity,
        decision);
  }

  /** A greedy generation: every emitted token accepted, no cache, no speculation. */
  public static ServeOutcome greedy(long tokensIn, long tokensOut) {
    return new ServeOutcome(
        OutcomeCounters.greedy(tokensIn, tokensOut), Optional.empty(), Optional.empty());
  }

  /** Returns a copy reporting {@code delivered} as the delivered fidelity. */
  public ServeOutcome withDeliveredFidelity(Fidelity delivered) {
    return new ServeOutcome(counters, Optional.of(delivered), decision);
  }

  /**
   * Prompt tokens consumed. This and {@link #tokensOut()} are the counters an outcome is checked
   * against (the prompt, {@code max_tokens}, the tokens emitted, the cost profile); the others
   * travel to the receipt as they are, read through {@link #counters()}.
   */
  public long tokensIn() {
    return counters.tokensIn();
  }

  /** Tokens emitted. */
  public long tokensOut() {
    return counters.tokensOut();
  }
}
