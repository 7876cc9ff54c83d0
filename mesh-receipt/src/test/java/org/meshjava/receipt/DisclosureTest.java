package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.receipt.ClaimsFixtures.PROMPT;
import static org.meshjava.receipt.ClaimsFixtures.REQUEST;
import static org.meshjava.receipt.ClaimsFixtures.TOKENS;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.meshjava.core.TokenSequence;

class DisclosureTest {
  private static final Opening.Key KEY = Opening.Key.of(ClaimsFixtures.KEY);
  private static final Opening OPENING = KEY.open(REQUEST);
  private static final MeshReceipt RECEIPT = ClaimsFixtures.generation(REQUEST, OPENING);

  @Test
  void verify_passes_forTheSealedOutput() {
    assertThatCode(() -> Disclosure.of(OPENING, PROMPT, TOKENS).verify(RECEIPT))
        .doesNotThrowAnyException();
  }

  @Test
  void verify_refuses_otherTokensPayloadOrOpening() {
    notOpened(() -> Disclosure.of(OPENING, PROMPT, TokenSequence.of(7, 8, 9)).verify(RECEIPT));
    notOpened(() -> Disclosure.of(OPENING, TokenSequence.of(10, 20), TOKENS).verify(RECEIPT));
    notOpened(
        () ->
            Disclosure.of(KEY.open(ClaimsFixtures.OTHER_REQUEST), PROMPT, TOKENS).verify(RECEIPT));
  }

  @Test
  void verify_opensOnlyTheReceiptItWasMadeFor() {
    MeshReceipt other =
        ClaimsFixtures.generation(
            ClaimsFixtures.OTHER_REQUEST, KEY.open(ClaimsFixtures.OTHER_REQUEST));
    notOpened(() -> Disclosure.of(OPENING, PROMPT, TOKENS).verify(other));
  }

  @Test
  void verify_refusesADecision_whichCommitsToNothing() {
    assertThatThrownBy(
            () ->
                Disclosure.of(OPENING, PROMPT, TokenSequence.empty())
                    .verify(ClaimsFixtures.decision(REQUEST)))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e ->
                org.assertj.core.api.Assertions.assertThat(e.reason())
                    .isEqualTo(ReceiptException.Reason.NO_COMMITMENT));
  }

  private static void notOpened(ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e ->
                org.assertj.core.api.Assertions.assertThat(e.reason())
                    .isEqualTo(ReceiptException.Reason.NOT_OPENED));
  }
}
