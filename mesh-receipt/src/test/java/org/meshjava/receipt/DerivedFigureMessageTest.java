package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.with;
import static org.meshjava.receipt.TestReceipts.without;

import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;

/**
 * Regression: a derived figure that disagrees with the energy and counts was refused with Java's
 * {@code OptionalLong} rendering, "uj_per_accepted_token is OptionalLong[1] but the energy and
 * counts give OptionalLong[140]" (or "OptionalLong.empty"), which reached {@code mesh verify} and
 * the witness endpoint's 400 as it was. The message now gives the numbers, or says the figure is
 * absent.
 */
class DerivedFigureMessageTest {
  private static String refusal(CborMap core) {
    Throwable t = catchThrowable(() -> Jcr1.open(TestReceipts.signCore(core, KEY)));
    assertThat(t).isInstanceOf(ReceiptException.class);
    assertThat(((ReceiptException) t).reason())
        .isEqualTo(ReceiptException.Reason.INCONSISTENT_RECEIPT);
    return t.getMessage();
  }

  private static CborMap generation() {
    return TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore();
  }

  @Test
  void aWrongFigure_isNamedWithBothNumbers() {
    CborMap core = generation();
    long sealed = ((CborInt) core.get("uj_per_accepted_token").orElseThrow()).value();
    String message = refusal(with(core, "uj_per_accepted_token", CborInt.of(sealed + 1)));
    assertThat(message)
        .contains(
            "uj_per_accepted_token is "
                + (sealed + 1)
                + " but the energy and counts give "
                + sealed)
        .doesNotContain("Optional");
  }

  @Test
  void aFigureWhereNoneIsDue_isSaidToBeOneTooMany() {
    String message = refusal(with(generation(), "tokens_accepted", CborInt.of(0)));
    assertThat(message)
        .contains("but the energy and counts give none: it must be absent")
        .doesNotContain("Optional");
  }

  @Test
  void aMissingFigure_isSaidToBeAbsent() {
    String message = refusal(without(generation(), "uj_per_accepted_token"));
    assertThat(message)
        .contains("uj_per_accepted_token is absent but the energy and counts give ")
        .doesNotContain("Optional");
  }
}
