package org.meshjava.steward;

import java.util.Objects;
import org.meshjava.core.TokenSequence;

/**
 * What re-executing a sealed serve settles (§6.4): exactly one of {@link Verified}, {@link
 * Diverged} or {@link NotReplayable}. A divergence is reported only when it can be attributed to
 * the serve; anything else that fails to match is not replayable.
 *
 * <p>Implementations are immutable values.
 */
public sealed interface ReplayVerdict
    permits ReplayVerdict.Verified, ReplayVerdict.Diverged, ReplayVerdict.NotReplayable {

  /** The re-run opens the receipt's commitment: the serve produced what was sealed. */
  record Verified() implements ReplayVerdict {}

  /**
   * A disclosed output opens the commitment on the payload and opening the replay used, and the
   * re-run produced other tokens: the sealed serve's output is not what the engine produces.
   *
   * @param firstDifference the index of the first token at which the disclosed and re-run outputs
   *     part; the shorter length when one is a prefix of the other
   * @param disclosed the output the receipt sealed (opened by the disclosure)
   * @param replayed the output the re-run produced
   */
  record Diverged(int firstDifference, TokenSequence disclosed, TokenSequence replayed)
      implements ReplayVerdict {
    /** Validates the record. */
    public Diverged {
      Objects.requireNonNull(disclosed, "disclosed");
      Objects.requireNonNull(replayed, "replayed");
      if (firstDifference < 0 || firstDifference > Math.min(disclosed.size(), replayed.size())) {
        throw new IllegalArgumentException("firstDifference out of range: " + firstDifference);
      }
    }
  }

  /**
   * The replay cannot settle anything about the serve.
   *
   * @param reason which case of §6.4
   * @param detail what was found, for people
   */
  record NotReplayable(Reason reason, String detail) implements ReplayVerdict {
    /** Validates the record. */
    public NotReplayable {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }
  }

  /** Why a replay settles nothing. Stable; match on it. */
  enum Reason {
    /** The receipt commits to no output: a typed decision, or sealed before commitments. */
    NO_COMMITMENT,
    /**
     * The engine does not declare itself deterministic (§5): its output is not expected to repeat.
     */
    SAMPLING_ENGINE,
    /** The engine is not the backend, or does not serve the recipe, the receipt names. */
    OTHER_BACKEND,
    /** The receipt sealed a weights binding and the engine runs other weights or precision. */
    OTHER_WEIGHTS,
    /** The request is not the one the receipt is for. */
    OTHER_REQUEST,
    /**
     * The engine failed to serve the request again, or threw (or answered null) when asked its
     * name, recipe, weights or whether it is deterministic.
     */
    ENGINE_FAILED,
    /**
     * The re-run does not open the commitment and no disclosed output opens it on the replay's
     * payload and opening, so the mismatch may be the replayer's own input.
     */
    UNATTRIBUTABLE_MISMATCH
  }
}
