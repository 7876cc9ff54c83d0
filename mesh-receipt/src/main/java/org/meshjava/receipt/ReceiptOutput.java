package org.meshjava.receipt;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;

/**
 * What a receipt says about the serve's output: a generation, with its output commitment (§6.4)
 * when one was made, or a typed decision with its shape (§3.6), which commits to nothing. A receipt
 * holds exactly one of the two.
 *
 * <p>Implementations are immutable values.
 */
public sealed interface ReceiptOutput permits ReceiptOutput.Generation, ReceiptOutput.Decision {

  /**
   * A generation's output.
   *
   * @param commitment the commitment to the output tokens ({@code output_commitment}), if made
   */
  record Generation(Optional<ContentId> commitment) implements ReceiptOutput {
    /** Checks the commitment's presence is given. */
    public Generation {
      Objects.requireNonNull(commitment, "commitment");
    }
  }

  /**
   * A typed decision's output: what was answered, never the answers (§3.6).
   *
   * @param shape questions answered, options scored, schema tokens
   * @param perOptionFigure whether the receipt carries {@code uj_per_option_scored}: §3.6 makes it
   *     a SHOULD, so mesh-java always seals it, but a receipt sealed without it is still a valid
   *     one and must open and re-encode to the bytes it was signed as
   */
  record Decision(DecisionShape shape, boolean perOptionFigure) implements ReceiptOutput {
    /** Checks the shape is present. */
    public Decision {
      Objects.requireNonNull(shape, "shape");
    }

    /**
     * A decision whose receipt carries {@code uj_per_option_scored}, as mesh-java seals it.
     *
     * @param shape questions answered, options scored, schema tokens
     */
    public Decision(DecisionShape shape) {
      this(shape, true);
    }
  }
}
