package org.meshjava.jcp;

import java.util.Objects;
import java.util.OptionalInt;
import org.meshjava.core.DenialLabel;

/**
 * The gate refused a grant. Carries the {@link DenialLabel}, a readable reason, and, when one link
 * of the chain is at fault, that link's index (0 is the root).
 *
 * <p>{@link #callerNotAuthenticated()} separates "the caller could not show it is the grant's
 * issuer" (an HTTP binding answers 401) from every other refusal (403), per §2.3.
 */
public final class GrantRefusedException extends JcpException {
  private static final long serialVersionUID = 1L;

  private final DenialLabel label;
  private final String reason;
  private final int link;

  GrantRefusedException(DenialLabel label, String reason) {
    this(label, reason, -1);
  }

  GrantRefusedException(DenialLabel label, String reason, int link) {
    super(label.wire() + (link >= 0 ? " (link " + link + ")" : "") + ": " + reason);
    this.label = Objects.requireNonNull(label, "label");
    this.reason = Objects.requireNonNull(reason, "reason");
    this.link = link;
  }

  /**
   * Creates a refusal; for {@link SpendLedger} implementations outside this package, which refuse
   * with {@link DenialLabel#PRESENTATION_SPENT} or {@link DenialLabel#BUDGET_EXHAUSTED}.
   */
  public static GrantRefusedException of(DenialLabel label, String reason) {
    return new GrantRefusedException(label, reason);
  }

  /** Returns the stable label. */
  public DenialLabel label() {
    return label;
  }

  /** Returns the human-readable reason (not stable; do not match on it). */
  public String reason() {
    return reason;
  }

  /** Returns the index of the offending chain link (0 = root), if one link is at fault. */
  public OptionalInt link() {
    return link >= 0 ? OptionalInt.of(link) : OptionalInt.empty();
  }

  /**
   * Whether the refusal is about who is presenting rather than about the grant: the caller is not
   * the leaf's issuer, or its presentation signature does not verify for this request.
   */
  public boolean callerNotAuthenticated() {
    return label == DenialLabel.NOT_ISSUER || (label == DenialLabel.BAD_SIGNATURE && link < 0);
  }
}
