package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborRule;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.VerificationKey;
import org.meshjava.core.identity.DidKeyException;

/**
 * A failure made without a cause keeps its cause unset, so a caller may still {@link
 * Throwable#initCause} it, as it could when these exceptions extended {@link Exception} directly.
 */
class ReasonedExceptionCauseTest {

  /** Regression: a cause set to none by the shared base made initCause throw. */
  @Test
  void aFailureMadeWithoutACause_takesOneLater() {
    IOException why = new IOException("read failed");

    DidKeyException didKey = new DidKeyException(DidKeyException.Reason.PREFIX, "not did:key");
    CborDecodeException cbor = new CborDecodeException(CborRule.values()[0], 0, "short");
    SignatureException signature =
        catchThrowableOfType(SignatureException.class, () -> VerificationKey.of(new byte[3]));

    for (ReasonedException e : new ReasonedException[] {didKey, cbor, signature}) {
      assertThat(e.getCause()).isNull();
      assertThat(e.initCause(why).getCause()).isSameAs(why);
    }
  }
}
