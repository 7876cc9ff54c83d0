package org.meshjava.jcp;

import java.util.Objects;
import org.meshjava.core.DenialLabel;

/**
 * Bytes or text that do not decode as a grant, signed grant, chain or presentation. Carries the
 * {@link Malformation} and the field at fault ({@code grant.caveats[1].weights}, …). Its {@link
 * #label()} is {@link DenialLabel#MALFORMED}, for callers that report every refusal by label.
 */
public final class MalformedGrantException extends JcpException {
  private static final long serialVersionUID = 1L;

  private final Malformation malformation;
  private final String field;

  MalformedGrantException(Malformation malformation, String field, String detail) {
    super(malformation + " at " + field + ": " + detail);
    this.malformation = Objects.requireNonNull(malformation, "malformation");
    this.field = Objects.requireNonNull(field, "field");
  }

  MalformedGrantException(Malformation malformation, String field, String detail, Throwable cause) {
    this(malformation, field, detail);
    initCause(cause);
  }

  /** Returns what was wrong. */
  public Malformation malformation() {
    return malformation;
  }

  /** Returns the path of the offending field, e.g. {@code chain[0].grant.issuer}. */
  public String field() {
    return field;
  }

  /** Returns {@link DenialLabel#MALFORMED}. */
  public DenialLabel label() {
    return DenialLabel.MALFORMED;
  }
}
