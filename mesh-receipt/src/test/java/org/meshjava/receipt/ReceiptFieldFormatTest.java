package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.id;
import static org.meshjava.receipt.TestReceipts.with;

import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.receipt.ReceiptException.Reason;

/**
 * A signed core whose one field breaks its own format is malformed, as a fidelity above 4 is;
 * inconsistent is kept for what breaks a rule between fields (SPEC 20 §2).
 *
 * <p>Regression: an empty or two-line {@code backend}, {@code recipe} or {@code route}, a {@code
 * precision} outside its pattern and a decision of 0 questions were refused as inconsistent, the
 * kind for couplings, because the receipt builder checks both kinds and every refusal it made was
 * reported as the second. The independent verifier (mesh-conformance/tools/pyverify) called them
 * malformed, and so does SPEC 20 §2 now.
 */
class ReceiptFieldFormatTest {
  private static CborMap base() {
    return TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore();
  }

  private static Arguments field(String name, UnaryOperator<CborMap> mutate) {
    return Arguments.of(name, mutate);
  }

  static Stream<Arguments> oneFieldOutOfFormat() {
    return Stream.of(
        field("an empty backend", m -> with(m, "backend", new CborText(""))),
        field("a backend of two lines", m -> with(m, "backend", new CborText("cpu\nnpu"))),
        field("a recipe with a carriage return", m -> with(m, "recipe", new CborText("base\r"))),
        field("an empty route", m -> with(m, "route", new CborText(""))),
        field(
            "precision in upper case",
            m ->
                with(
                    with(m, "weights_digest", new CborText(id("w").hex())),
                    "precision",
                    new CborText("FP32"))),
        field(
            "a decision of no question",
            m ->
                with(
                    with(
                        with(m, "questions_answered", CborInt.of(0)),
                        "options_scored",
                        CborInt.of(0)),
                    "schema_tokens",
                    CborInt.of(0))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("oneFieldOutOfFormat")
  void aFieldOutOfItsOwnFormat_isMalformed_notInconsistent(
      String name, UnaryOperator<CborMap> mutate) {
    Envelope envelope = TestReceipts.signCore(mutate.apply(base()), KEY);

    Throwable t = catchThrowable(() -> Jcr1.open(envelope));

    assertThat(t).as(name).isInstanceOf(ReceiptException.class);
    assertThat(((ReceiptException) t).reason())
        .as(name + ": " + t.getMessage())
        .isEqualTo(Reason.MALFORMED_RECEIPT);
  }
}
