package org.meshjava.jcp;

import java.util.Objects;

/**
 * The library refused to sign a grant: the key is not the issuer, a delegation would widen its
 * parent, or a sharding would hand out more budget than the parent has.
 */
public final class IssuanceException extends JcpException {
  private static final long serialVersionUID = 1L;

  private final IssuanceProblem problem;

  IssuanceException(IssuanceProblem problem, String detail) {
    super(problem + ": " + detail);
    this.problem = Objects.requireNonNull(problem, "problem");
  }

  /** Returns what was wrong. */
  public IssuanceProblem problem() {
    return problem;
  }
}
