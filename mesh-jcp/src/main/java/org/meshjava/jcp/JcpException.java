package org.meshjava.jcp;

/**
 * The failures of this module a caller must handle: a grant the gate refuses ({@link
 * GrantRefusedException}), bytes that are not a well-formed grant, chain or presentation ({@link
 * MalformedGrantException}), and an issuance the library will not sign ({@link IssuanceException}).
 * Each subtype carries a reason enum; match on it, not on the message.
 */
public abstract sealed class JcpException extends Exception
    permits GrantRefusedException, MalformedGrantException, IssuanceException {
  private static final long serialVersionUID = 1L;

  JcpException(String message) {
    super(message);
  }
}
